import ArgumentParser
import Foundation

/// What `--watch` watches and how it rebuilds: `--watch-path` and `--watch-build`, shared by
/// `serve` (and `exec`) and `run-runtime`, whose own `--watch` flag says what a good build does.
struct WatchBuildOptions: ParsableArguments {
    @Option(
        name: .customLong("watch-path"),
        help: "A file or folder --watch watches (repeatable; default Sources, bootstrap and Package.swift).")
    var paths: [String] = []

    @Option(
        name: .customLong("watch-build"),
        help: """
            The command --watch runs (with /bin/sh) after a change (default swift build --product bootstrap, \
            with -c release for a runtime under .build/release).
            """)
    var build: String?

    /// The watched paths: the given ones, else the package's sources and manifest.
    var watchedPaths: [String] { paths.isEmpty ? ["Sources", "bootstrap", "Package.swift"] : paths }

    /// The build command for `runtime`: the given one, else the package's.
    /// (a release build for `.build/release/…`, else a debug one).
    func buildCommand(for runtime: String) -> String {
        build
            ?? (runtime.contains("/release/")
                ? "swift build -c release --product bootstrap" : "swift build --product bootstrap")
    }

    /// Refuses `--watch-path` or `--watch-build` without `--watch`.
    func validate(watch: Bool) throws {
        if !watch && (!paths.isEmpty || build != nil) {
            throw ValidationError("--watch-path and --watch-build go with --watch")
        }
    }
}
