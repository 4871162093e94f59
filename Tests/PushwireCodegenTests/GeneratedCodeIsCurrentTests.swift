import Foundation
import XCTest

@testable import pushwire_codegen

/// pushwire-codegen, run in process on the descriptor set protoc writes for Protos/, reproduces the
/// committed generated Swift byte for byte (what `Scripts/generate --check` checks, here in the
/// suite, so a change to the generator that would rewrite the wrappers shows as a failing test).
final class GeneratedCodeIsCurrentTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheCommittedWrappersAndClientsAreWhatTheGeneratorWrites() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/protoc") else {
            throw XCTSkip("protoc is missing (apt-get install protobuf-compiler)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let protos = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Protos/pushwire/v1").path)
            .filter { $0.hasSuffix(".proto") }.sorted().map { "Protos/pushwire/v1/\($0)" }
        let descriptorSet = scratch.appendingPathComponent("pushwire.desc").path
        let protoc = Process()
        protoc.executableURL = URL(fileURLWithPath: "/usr/bin/protoc")
        protoc.currentDirectoryURL = root
        protoc.arguments = ["--proto_path=Protos", "--include_source_info", "--include_imports", "--descriptor_set_out=\(descriptorSet)"] + protos
        try protoc.run()
        protoc.waitUntilExit()
        XCTAssertEqual(protoc.terminationStatus, 0)

        let wire = scratch.appendingPathComponent("wire").path, client = scratch.appendingPathComponent("client").path
        try pushwire_codegen.run(["--descriptor-set", descriptorSet, "--wire-out", wire, "--client-out", client])

        for (generated, committed) in [(wire, "Sources/PushwireWire/Generated"), (client, "Sources/PushwireClient/Generated")] {
            let committedDirectory = root.appendingPathComponent(committed).path
            let names = try FileManager.default.contentsOfDirectory(atPath: generated).sorted()
            XCTAssertEqual(names, try FileManager.default.contentsOfDirectory(atPath: committedDirectory).sorted(), committed)
            for name in names {
                let fresh = try String(contentsOfFile: "\(generated)/\(name)", encoding: .utf8)
                let kept = try String(contentsOfFile: "\(committedDirectory)/\(name)", encoding: .utf8)
                XCTAssertTrue(fresh == kept, "\(committed)/\(name) differs from what pushwire-codegen writes: run Scripts/generate")
            }
        }
    }

    func testUsageErrorsNameTheFlags() {
        XCTAssertThrowsError(try pushwire_codegen.run(["--descriptor-set"])) { error in
            XCTAssertTrue("\(error)".contains("usage: pushwire-codegen --descriptor-set FILE"), "\(error)")
        }
        XCTAssertThrowsError(try pushwire_codegen.run(["--descriptor-set", "/nonexistent/pushwire.desc", "--wire-out", "/tmp/x", "--client-out", "/tmp/y"])) { error in
            XCTAssertTrue("\(error)".contains("cannot open /nonexistent/pushwire.desc"), "\(error)")
        }
    }
}
