import Foundation
import XCTest

@testable import PushwireConsole
@testable import PushwireRuntime

/// The console's route: which file each path answers, with which type and security headers, and
/// that the embedded files are exactly Console/'s (one source of truth).
final class ConsoleTests: XCTestCase {
    private let files = ConsoleFiles.all.mapValues { (contentType: $0.contentType, body: Array($0.text.utf8)) }

    private func get(_ path: String, method: String = "GET") throws -> HTTPResponse {
        let request = HTTPRequest(method: method, path: path, query: "", headers: [], body: [],
                                  peer: try SocketAddress(parsing: "127.0.0.1:1"))
        return Console.answer(request, files: files)
    }

    private func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    func testIndexAndModulesHaveTheirTypesAndAStrictPolicy() throws {
        for (path, type) in [("/console/", "text/html; charset=utf-8"), ("/console/index.html", "text/html; charset=utf-8"),
                             ("/console/app.js", "text/javascript; charset=utf-8"), ("/console/console.css", "text/css; charset=utf-8")] {
            let response = try get(path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.contentType, type, path)
            XCTAssertEqual(header(response, "X-Content-Type-Options"), "nosniff", path)
            let policy = try XCTUnwrap(header(response, "Content-Security-Policy"), path)
            XCTAssertTrue(policy.contains("default-src 'none'"), policy)
            XCTAssertTrue(policy.contains("script-src 'self';"), policy)
            XCTAssertFalse(policy.contains("unsafe-inline"), policy)
            XCTAssertTrue(policy.contains("frame-ancestors 'none'"), policy)
        }
        let index = String(decoding: try get("/console/").body, as: UTF8.self)
        XCTAssertTrue(index.contains(#"<script type="module" src="app.js"></script>"#))
    }

    func testNoInlineScriptOrStyleOrHandlerInTheHTML() throws {
        let index = String(decoding: try get("/console/").body, as: UTF8.self)
        // Every <script> has a src; no on…= handler attributes, no style= or <style>.
        XCTAssertNil(index.range(of: #"<script(?![^>]*\ssrc=)[^>]*>"#, options: .regularExpression))
        XCTAssertNil(index.range(of: #"\son[a-z]+\s*="#, options: .regularExpression))
        XCTAssertNil(index.range(of: #"<style|\sstyle="#, options: .regularExpression))
    }

    func testBarePrefixRedirectsAndUnknownPathsAreNotFound() throws {
        let bare = try get("/console")
        XCTAssertEqual(bare.status, 301)
        XCTAssertEqual(header(bare, "Location"), "/console/")
        for path in ["/console/nope.js", "/console/../admin-token", "/console/%2e%2e/x", "/consolex", "/console/sub/app.js"] {
            let response = try get(path)
            XCTAssertEqual(response.status, 404, path)
            XCTAssertEqual(header(response, "X-Content-Type-Options"), "nosniff", path)
        }
        let post = try get("/console/", method: "POST")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(header(post, "Allow"), "GET, HEAD")
        XCTAssertEqual(try get("/console/app.js", method: "HEAD").status, 200)
    }

    func testEmbeddedFilesAreExactlyConsoleDirectory() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Console")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        XCTAssertEqual(names, ConsoleFiles.all.keys.sorted(), "run Scripts/generate after changing Console/")
        for name in names {
            let onDisk = try Data(contentsOf: root.appendingPathComponent(name))
            XCTAssertTrue(Array(onDisk) == Array(try XCTUnwrap(ConsoleFiles.all[name]).text.utf8),
                           "\(name) differs from its embedded copy; run Scripts/generate")
        }
    }
}
