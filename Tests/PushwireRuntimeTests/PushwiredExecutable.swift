import Foundation
import XCTest

/// The pushwired built next to the test bundle, for the suites that run it as a subprocess
/// (PushwiredProcessTests, PushwiredLimitTests); skips the test when it is not built.
func pushwiredExecutable() throws -> URL {
    let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidates = [bundleDirectory.appendingPathComponent("pushwired")]
    for argument in CommandLine.arguments where argument.hasSuffix(".xctest") {
        candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent().appendingPathComponent("pushwired"))
    }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw XCTSkip("pushwired is not built next to the tests (run `swift build` first)")
    }
    return found
}
