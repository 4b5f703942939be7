// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ratecard",
    products: [
        .executable(name: "ratecard", targets: ["ratecard"]),
        .executable(name: "ratecard-generate", targets: ["ratecard-generate"]),
        .library(name: "RatecardKit", targets: ["RatecardKit"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages; headers and link flags through pkg-config.
        .systemLibrary(name: "CGit2", pkgConfig: "libgit2", providers: [.apt(["libgit2-dev"])]),
        // cmark-gfm (GitHub's fork of cmark, with the table extension); it replaces libcmark, whose
        // symbols have the same names.
        .systemLibrary(
            name: "CCmark", pkgConfig: "libcmark-gfm", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SVG logos are parsed as XML to check them against an allow-list.
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // HTTP for object storage (S3-compatible), with its AWS SigV4 signing. Not linked: its
        // header loads libcurl on the first request (shim.h says why), so no pkg-config here.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Linux calls that Glibc does not export to Swift (renameat2, flock constants).
        .target(name: "CShims"),

        // The layers, bottom up; a target sees only those below it, so a loop is a compile error.
        // Support: files, JSON, errors, parallel work, tracing, SHA-256; nothing of the domain.
        .target(name: "RatecardSupport", dependencies: ["CShims", "CCrypto"]),
        // Core: git (Source), YAML, the content model and its loading, validation, the semantic diff,
        // the build cache, the cmark adapter.
        .target(
            name: "RatecardCore",
            dependencies: ["RatecardSupport", "CGit2", "CCmark", "CYAML", "CCrypto", "CXML2", "CShims"]
        ),
        // The app's loader (live.json, the release file list, what it trusts and checks): Foundation
        // only, since `bridge generate` writes the same source into the app; `ratecard fetch` runs it.
        .target(name: "RatecardLoader"),
        // Output: what a build writes, given content: rendering, bundle assembly, the bridge's
        // generators and checks. It names no store: the release layer sits above it.
        .target(name: "RatecardOutput", dependencies: ["RatecardCore", "RatecardSupport"]),
        // Release: where a build goes: the release protocol and its journal, the stores (serve root,
        // object storage), bridge lines, the signed live.json and the loader's transports.
        .target(
            name: "RatecardRelease",
            dependencies: ["RatecardOutput", "RatecardCore", "RatecardSupport", "RatecardLoader", "CCrypto", "CXML2", "CCurl", "CShims"]
        ),
        // The pipeline (still named RatecardKit, the library product): validation, build and publish
        // runs, the incremental bundle of a rate update, preview --watch, the change history.
        .target(
            name: "RatecardKit",
            dependencies: ["RatecardRelease", "RatecardOutput", "RatecardCore", "RatecardSupport"]
        ),
        // The benchmark's content generator, outside the library: it needs only the core.
        .target(name: "RatecardGenerate", dependencies: ["RatecardCore", "RatecardSupport"]),
        .target(name: "RatecardCLI", dependencies: ["RatecardKit", "RatecardGenerate"]),
        .executableTarget(name: "ratecard", dependencies: ["RatecardCLI"]),
        .executableTarget(name: "ratecard-generate", dependencies: ["RatecardCLI"]),

        // What both test targets share: the fixtures (a resource), temporary folders, the built
        // binary, the nginx, Chromium and S3 servers, `PublishFixture`. Each test target re-exports it.
        .target(
            name: "RatecardTestSupport",
            dependencies: ["RatecardKit"],
            path: "Tests/RatecardTestSupport",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "RatecardKitTests",
            dependencies: ["RatecardKit", "RatecardGenerate", "RatecardLoader", "RatecardTestSupport"]
        ),
        .testTarget(
            name: "RatecardCLITests",
            dependencies: ["RatecardCLI", "RatecardKit", "RatecardGenerate", "RatecardLoader", "CShims", "RatecardTestSupport"]
        ),
    ]
)
