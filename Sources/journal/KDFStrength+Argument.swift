import ArgumentParser
import JournalApp

extension KDFStrength: ExpressibleByArgument {}
