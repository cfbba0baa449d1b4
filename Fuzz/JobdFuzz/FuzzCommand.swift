import Foundation

/// `jobd-fuzz TARGET [ARGUMENT...]`: one of jobd's parsers under libFuzzer (`scripts/fuzz`).
///
/// Built with `-sanitize=fuzzer -DJOBD_LIBFUZZER`, the arguments after the target go to libFuzzer
/// (options such as `-max_total_time=60`, then corpus directories). Built normally, with no
/// libFuzzer, each argument is a file or a directory of files that runs through the same target
/// once: how a crash that `scripts/fuzz` printed is replayed under a debugger.
@main
struct FuzzCommand {
    static func main() {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: jobd-fuzz TARGET [ARGUMENT...]; TARGET is one of \(names)\n".utf8))
            exit(2)
        }
        FuzzTarget.selected = target
        arguments.remove(at: 1)
        #if JOBD_LIBFUZZER
        exit(runLibFuzzer(arguments))
        #else
        exit(replay(Array(arguments.dropFirst()), through: target))
        #endif
    }

    /// Runs every file named (directories: every file in them) through `target`, once each.
    static func replay(_ paths: [String], through target: FuzzTarget) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("jobd-fuzz: \(path): no such file or directory\n".utf8))
                return 1
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("jobd-fuzz: \(file): cannot be read\n".utf8))
                return 1
            }
            target.run([UInt8](data))
        }
        print("jobd-fuzz: \(files.count) input(s) ran through \(target.rawValue) without a crash")
        return 0
    }
}

/// libFuzzer's entry point: every input it makes goes through the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if JOBD_LIBFUZZER
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Hands `arguments` (the program name first) to libFuzzer's driver, which runs until it finds a
/// crash or its limits (`-max_total_time`, `-runs`) end it.
private func runLibFuzzer(_ arguments: [String]) -> Int32 {
    var argc = Int32(arguments.count)
    var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    return pointers.withUnsafeMutableBufferPointer { buffer in
        var argv = buffer.baseAddress!
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
    }
}
#endif
