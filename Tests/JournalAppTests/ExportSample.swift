@testable import JournalApp

enum ExportSample {
  static func csvCells(_ texts: [String]) -> [String] { texts.map(Export.csvCell) }
}
