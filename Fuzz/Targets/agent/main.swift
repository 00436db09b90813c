import CLibFuzzer
import Glibc
import JournalFuzzHarness

/// One input, handed to FuzzHarness.agent.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  FuzzHarness.agent(UnsafeRawBufferPointer(start: data, count: size))
  return 0
}

// SwiftPM renames an executable's main, so libFuzzer's own cannot be the entry point: this
// one hands the command line to libFuzzer's driver.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
