import Dispatch
import Foundation
import InkraFuzzTargets

/// `inkra-fuzz`: the fuzz targets of ``FuzzTarget``.
///
/// Built by scripts/fuzz.sh with `-sanitize=fuzzer -DFUZZING`, it is a libFuzzer binary for the
/// target named by `INKRA_FUZZ_TARGET` (its arguments are libFuzzer's). Built as usual, it replays
/// inputs instead: `inkra-fuzz TARGET FILE-OR-FOLDER…` runs each file through the target and exits
/// 1 naming any input that breaks its invariant (a crash found by fuzzing, kept as a regression).
@main
enum FuzzMain {
    static func main() {
        #if FUZZING
            guard let name = ProcessInfo.processInfo.environment["INKRA_FUZZ_TARGET"],
                let target = FuzzTarget(rawValue: name)
            else {
                fail("set INKRA_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            selected = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                runFuzzerDriver(&argc, &argv) { data, size in
                    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
                    if let failure = FuzzMain.runBlocking(FuzzMain.selected, bytes) {
                        FileHandle.standardError.write(Data("invariant broken: \(failure)\n".utf8))
                        abort()
                    }
                    return 0
                })
        #else
            replay(Array(CommandLine.arguments.dropFirst()))
        #endif
    }

    nonisolated(unsafe) static var selected = FuzzTarget.json

    static func replay(_ arguments: [String]) {
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            fail(
                "usage: inkra-fuzz TARGET FILE-OR-FOLDER… (TARGET: "
                    + "\(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var count = 0
        var broken = 0
        for file in arguments.dropFirst().flatMap(files(in:)) {
            guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
            count += 1
            if let failure = runBlocking(target, Array(data)) {
                broken += 1
                print("FAIL \(file): \(failure)")
            }
        }
        print("\(target.rawValue): \(count) inputs, \(broken) broke the invariant")
        exit(broken == 0 && count > 0 ? 0 : 1)
    }

    /// The files under a path, in name order.
    static func files(in path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            fail("no such file: \(path)")
        }
        guard isDirectory.boolValue else { return [path] }
        let names = (FileManager.default.subpaths(atPath: path) ?? []).sorted()
        return names.map { "\(path)/\($0)" }.filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &folder) && !folder.boolValue
        }
    }

    /// Runs one input to completion from synchronous code (libFuzzer's callback is a C function).
    static func runBlocking(_ target: FuzzTarget, _ bytes: [UInt8]) -> FuzzFailure? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Task {
            do throws(FuzzFailure) { try await target.run(bytes) } catch { outcome.failure = error }
            done.signal()
        }
        done.wait()
        return outcome.failure
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("inkra-fuzz: \(message)\n".utf8))
        exit(2)
    }
}

/// The failure of one run, handed from its task to the waiting thread.
final class Outcome: @unchecked Sendable {
    var failure: FuzzFailure?
}

#if FUZZING
    /// libFuzzer's entry point for programs with their own `main`.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
