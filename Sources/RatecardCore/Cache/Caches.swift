import RatecardSupport

/// The caches of one run, made once where the run starts (the command line makes them from
/// `RATECARD_CACHE`, `RATECARD_CACHE_DIR` and `RATECARD_CACHE_MAX_MB`) and given to what loads,
/// checks and renders. Nothing reaches for a process-wide cache: a library caller or a test
/// passes its own, `Caches()` for none that outlives it.
public struct Caches: Sendable {
    /// Results kept between runs (`BuildCache`); nil for none.
    public let build: BuildCache?
    /// Parsed files by path and blob id, shared by every load of the run (a publish loads the
    /// content, the live release's commit and the changed files of an incremental build).
    package let parse: ParseCache
    /// Terms page articles the load renders for the build of this run (`PageArticles`).
    package let articles: PageArticles

    /// `build` (none by default) and an empty parse cache.
    public init(build: BuildCache? = nil) {
        self.build = build
        parse = ParseCache()
        articles = PageArticles()
    }

    /// The build cache the environment asks for (none when `RATECARD_CACHE=off` or no folder
    /// can be named); `warn` is told once why it is not used when its folder is unsafe.
    public init(environment: [String: String], warn: @escaping @Sendable (Message) -> Void) {
        self.init(build: BuildCache(environment: environment, warn: warn))
    }

    /// Ends the run's use: new build cache entries are written and the cache kept within its bound.
    public func finish() { build?.finish() }

    /// For a process that ends with this run: what the parse cache holds (every file the run
    /// read, parsed) is left for the exit to free with the process, instead of being freed one
    /// object at a time first (a tenth of a second after a build of a large site).
    public func keepUntilExit() { _ = Unmanaged.passRetained(parse) }
}
