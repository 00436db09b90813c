import Testing

@testable import JournalApp

struct ExternalEditorTests {
  /// vim, neovim and nano get the options that stop their swap, undo, backup and history
  /// files; an unknown editor gets none (its options are unknown).
  @Test func privacyArguments() {
    // Debian's vim.basic is vim: the same options, by its name's first part.
    #expect(
      ExternalEditor.privacyArguments(program: "vim.basic")
        == ExternalEditor.privacyArguments(program: "vim"))
    #expect(ExternalEditor.privacyArguments(program: "vim").last?.contains("noswapfile") == true)
    #expect(ExternalEditor.privacyArguments(program: "vim").prefix(3) == ["-n", "-i", "NONE"])
    #expect(ExternalEditor.privacyArguments(program: "nvim").last?.contains("shada=") == true)
    #expect(ExternalEditor.privacyArguments(program: "vim").contains("-c"), "after the vimrc too")
    #expect(ExternalEditor.privacyArguments(program: "nano") == ["--ignorercfiles"])
    #expect(ExternalEditor.privacyArguments(program: "nvi").isEmpty)
    #expect(ExternalEditor.privacyArguments(program: "emacs").isEmpty)
  }
}
