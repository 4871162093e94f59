import XCTest

@testable import pushwire_bench

/// pushwire-bench's command line, parsed in process: every scenario's defaults, the options that
/// change them, and a usage error (exit 64 in the binary) for each kind of bad input.
final class OptionsTests: XCTestCase {
    /// Parses arguments that must be accepted (a usage error fails the test with its message).
    private func parse(_ arguments: [String]) throws -> Options {
        do {
            return try parseOptions(arguments)
        } catch {
            XCTFail("\(arguments): \(error.message)")
            throw error
        }
    }

    private func usageError(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try parseOptions(arguments)
            XCTFail("\(arguments) parsed", file: file, line: line)
            return ""
        } catch {
            return error.message
        }
    }

    func testDefaultsAndTheirOverrides() throws {
        let ping = try parse(["ping"])
        XCTAssertEqual(ping.target, "127.0.0.1:7355")
        XCTAssertEqual(ping.connections, 4)
        XCTAssertEqual(ping.concurrency, 16)
        XCTAssertEqual(ping.duration, 10)
        XCTAssertEqual(ping.warmup, 1)
        XCTAssertEqual(ping.scenarioName, "ping")

        let tuned = try parse(["health", "--server", "[::1]:9000", "--connections", "2", "--concurrency", "8", "--requests", "500",
                               "--warmup", "250ms", "--rate", "1000", "--timeout", "2s", "--json", "--threads", "3"])
        XCTAssertEqual(tuned.target, "[::1]:9000")
        XCTAssertEqual(tuned.connections, 2)
        XCTAssertEqual(tuned.concurrency, 8)
        XCTAssertEqual(tuned.requests, 500)
        XCTAssertNil(tuned.duration, "--requests replaces the duration")
        XCTAssertEqual(tuned.warmup, 0.25)
        XCTAssertEqual(tuned.rate, 1000)
        XCTAssertEqual(tuned.timeoutMS, 2000)
        XCTAssertTrue(tuned.json)
        XCTAssertEqual(tuned.threads, 3)
        XCTAssertEqual(try parse(["ping", "--target", "127.0.0.1:1"]).target, "127.0.0.1:1", "--target is --server's alias")
    }

    func testScenariosAndMixes() throws {
        let pool = try parse(["register", "--pool", "100"])
        XCTAssertEqual(pool.kinds.map(\.kind), [.register(pool: 100)])
        let send = try parse(["send", "--devices", "3"])
        XCTAssertEqual(send.kinds.map(\.kind), [.send(devices: 3), .register(pool: 3)])
        XCTAssertEqual(send.kinds.map(\.weight), [1, 0], "the registration of the devices is setup, not load")
        let mix = try parse(["mix", "--weights", "ping=1,health=3,sync=0"])
        XCTAssertEqual(mix.kinds.map(\.kind.name), ["ping", "health"], "a zero weight leaves the scenario out")
        XCTAssertEqual(mix.kinds.map(\.weight), [1, 3])
        let call = try parse(["call", "Health/Check", "--data", "{}"])
        XCTAssertEqual(call.scenarioName, "call /pushwire.v1.Health/Check")
        XCTAssertTrue(try parse(["loopback-server", "--listen", "127.0.0.1:0"]).serveLoopback)
        XCTAssertTrue(try parse(["--version"]).showVersion)
        XCTAssertTrue(try parse(["ping", "--version"]).showVersion)
    }

    func testBadInputIsAUsageErrorNamingIt() {
        XCTAssertEqual(usageError([]), "missing scenario")
        XCTAssertEqual(usageError(["frob"]), "unknown scenario 'frob'")
        XCTAssertEqual(usageError(["ping", "--frob"]), "unknown option '--frob'")
        // The server address is checked with the other flags (it was exit 1 at connect time).
        XCTAssertEqual(usageError(["ping", "--server", "127.0.0.1"]), "--server: invalid address '127.0.0.1': expected host:port")
        XCTAssertEqual(usageError(["health", "--target", "pwires://host"]), "--target: invalid address 'host': expected host:port")
        do {
            _ = try parseFanOutOptions(["--server", "127.0.0.1"])
            XCTFail("fanout --server 127.0.0.1 parsed")
        } catch {
            XCTAssertEqual(error.message, "--server: invalid address '127.0.0.1': expected host:port")
        }
        XCTAssertEqual(usageError(["ping", "--connections"]), "--connections needs a value")
        XCTAssertEqual(usageError(["ping", "--connections", "0"]), "--connections: expected a positive integer, got '0'")
        XCTAssertEqual(usageError(["ping", "--concurrency", "70000"]), "--concurrency: at most 65535")
        XCTAssertEqual(usageError(["ping", "--duration", "soon"]), "--duration: expected a duration like 10s, got 'soon'")
        XCTAssertEqual(usageError(["ping", "--rate", "-5"]), "--rate: expected calls/s, got '-5'")
        XCTAssertEqual(usageError(["ping", "--pool", "10"]), "--pool: only for register (or a mix with register)")
        XCTAssertEqual(usageError(["mix"]), "mix: --weights ping=1,health=3 is required")
        XCTAssertEqual(usageError(["mix", "--weights", "ping"]), "--weights: expected name=weight, got 'ping'")
        XCTAssertEqual(usageError(["mix", "--weights", "ping=0"]), "--weights: no positive weight")
        XCTAssertEqual(usageError(["mix", "--weights", "nap=1"]), "--weights: unknown scenario 'nap' (ping, health, register, sync)")
        XCTAssertEqual(usageError(["call"]), "call: missing <method>")
        XCTAssertEqual(usageError(["ping", "--data-hex", "zz"]), "--data-hex: not hex: 'zz'")
        XCTAssertEqual(usageError(["ping", "--help"]), "", "help is an empty usage error: the binary prints the help")
    }

    func testDurations() {
        XCTAssertEqual(parseDuration("10s"), 10)
        XCTAssertEqual(parseDuration("500ms"), 0.5)
        XCTAssertEqual(parseDuration("250us"), 0.000_25)
        XCTAssertEqual(parseDuration("2m"), 120)
        XCTAssertEqual(parseDuration("3"), 3, "a bare number is seconds")
        XCTAssertNil(parseDuration("-1s"))
        XCTAssertNil(parseDuration("1e300"), "bounded: the seconds become nanoseconds")
        XCTAssertNil(parseDuration("inf"))
    }
}
