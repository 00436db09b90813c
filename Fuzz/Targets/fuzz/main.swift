import CLibFuzzer
import Glibc
import JournalFuzzHarness

/// The parser to fuzz, named by JOURNAL_FUZZ_TARGET: record, draft, header, import, agent or date
/// (`FuzzHarness.targets`). One executable for all of them: libFuzzer's entry point is a
/// single C symbol.
nonisolated(unsafe) let target: (UnsafeRawBufferPointer) -> Void = {
  let name = getenv("JOURNAL_FUZZ_TARGET").map { String(cString: $0) } ?? ""
  guard let target = FuzzHarness.targets[name] else {
    let names = FuzzHarness.targets.keys.sorted().joined(separator: ", ")
    let message = Array("fuzz: set JOURNAL_FUZZ_TARGET to one of \(names)\n".utf8)
    _ = write(STDERR_FILENO, message, message.count)
    exit(2)
  }
  return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  target(UnsafeRawBufferPointer(start: data, count: size))
  return 0
}

// SwiftPM renames an executable's main, so libFuzzer's own cannot be the entry point: this
// one hands the command line to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
