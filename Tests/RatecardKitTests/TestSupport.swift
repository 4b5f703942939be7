// The shared test helpers (fixtures, temporary folders, the built binary, the nginx, Chromium and
// S3 servers, `PublishFixture`), visible to every file of this target without an import of its own.
@_exported import RatecardTestSupport
