import Foundation

/// The one input a fuzz target checks: libFuzzer's bytes, or a file's when replaying.
public typealias FuzzInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: FuzzInput
    ) -> CInt
#endif

/// The entry point every `CoreLocationFuzz…` executable shares (scripts/fuzz.sh).
///
/// Built with `-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING`, it hands over to libFuzzer's driver
/// (SwiftPM links an executable's `@main` as `<Module>_main` and aliases `main` to it, which shadows
/// libFuzzer's own `main`, so the target's `@main` calls this). A plain build replays the files given as
/// arguments through the same checks, so a crash the fuzzer found replays without libFuzzer.
public enum FuzzDriver {
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ input: FuzzInput
    ) -> CInt {
        #if FUZZING
            var count = argc
            var arguments = argv
            return LLVMFuzzerRunDriver(&count, &arguments, input)
        #else
            var replayed = 0
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                    return 66
                }
                _ = data.withUnsafeBytes { input($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
                replayed += 1
            }
            // An executable's support, not library code: the replay result goes to standard error.
            FileHandle.standardError.write(Data("replayed \(replayed) input(s) without a failure\n".utf8))
            return 0
        #endif
    }
}
