import XCTest
@testable import PushwireWire

/// The length-prefix and preface layer of `FrameDecoder`, on raw payloads: how bytes arrive
/// (split, byte by byte, many at once), limits, and the cost of buffer management.
final class FramePayloadTests: XCTestCase {
    /// `payload` behind its 4-byte big-endian length.
    static func framed(_ payload: [UInt8]) -> [UInt8] {
        let n = UInt32(payload.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + payload
    }

    /// Deterministic payloads of assorted sizes.
    static func payloads(count: Int, maxSize: Int) -> [[UInt8]] {
        var generator = SplitMix64(seed: 7)
        return (0..<count).map { _ in
            let size = Int(generator.next() % UInt64(maxSize + 1))
            return (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
    }

    func drain(_ decoder: inout FrameDecoder) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let payload = try decoder.nextPayload() { out.append(payload) }
        return out
    }

    func testPrefaceThenPayloadsInOneAppend() throws {
        let payloads = Self.payloads(count: 50, maxSize: 300)
        var decoder = FrameDecoder(expectsPreface: true)
        decoder.append(WireProtocol.preface + payloads.flatMap(Self.framed))
        XCTAssertEqual(try drain(&decoder), payloads)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testByteByByteDelivery() throws {
        let payloads = Self.payloads(count: 20, maxSize: 200) + [[]]
        let stream = WireProtocol.preface + payloads.flatMap(Self.framed)
        var decoder = FrameDecoder(expectsPreface: true)
        var got: [[UInt8]] = []
        for byte in stream {
            decoder.append([byte])
            got += try drain(&decoder)
        }
        XCTAssertEqual(got, payloads)
    }

    func testPayloadSplitOverManyAppendsOfVaryingSize() throws {
        let payloads = Self.payloads(count: 40, maxSize: 70_000)
        let stream = payloads.flatMap(Self.framed)
        var generator = SplitMix64(seed: 99)
        var decoder = FrameDecoder(expectsPreface: false)
        var got: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let size = min(stream.count - offset, 1 + Int(generator.next() % 9000))
            stream[offset..<(offset + size)].withUnsafeBytes { decoder.append($0) }
            offset += size
            got += try drain(&decoder)
        }
        XCTAssertEqual(got, payloads)
    }

    func testWithWritableTailReadsStraightIntoTheBuffer() throws {
        let stream = WireProtocol.preface + Self.framed([1, 2, 3]) + Self.framed([4])
        var decoder = FrameDecoder(expectsPreface: true)
        var offset = 0
        var got: [[UInt8]] = []
        while offset < stream.count {
            // Like read(2) with a small buffer: fills at most 5 bytes of what is offered.
            let written = decoder.withWritableTail(minimumCapacity: 5) { tail in
                XCTAssertGreaterThanOrEqual(tail.count, 5)
                let n = min(5, stream.count - offset)
                tail.copyMemory(from: UnsafeRawBufferPointer(start: stream.withUnsafeBytes { $0.baseAddress! } + offset, count: n))
                return n
            }
            offset += written
            got += try drain(&decoder)
        }
        XCTAssertEqual(got, [[1, 2, 3], [4]])
    }

    func testFailedReadLeavesTheBufferAsItWas() throws {
        struct ReadFailed: Error {}
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append([0, 0])
        XCTAssertThrowsError(try decoder.withWritableTail(minimumCapacity: 16) { _ in throw ReadFailed() })
        XCTAssertEqual(decoder.bufferedByteCount, 2)
        decoder.append([0, 1, 9])
        XCTAssertEqual(try decoder.nextPayload(), [9])
    }

    func testBadPrefaceIsRejectedAtTheFirstWrongByte() {
        var decoder = FrameDecoder(expectsPreface: true)
        decoder.append(Array("GET".utf8))
        XCTAssertThrowsError(try decoder.nextPayload()) { XCTAssertEqual($0 as? FramingError, .badPreface) }
        XCTAssertEqual(decoder.allocatedByteCount, 0, "the buffer is released once the stream is dead")
        // The stream cannot be resynchronised: the error sticks.
        decoder.append(WireProtocol.preface)
        XCTAssertThrowsError(try decoder.nextPayload()) { XCTAssertEqual($0 as? FramingError, .badPreface) }
    }

    func testPartialCorrectPrefaceWaits() throws {
        var decoder = FrameDecoder(expectsPreface: true)
        decoder.append(Array(WireProtocol.preface[0..<5]))
        XCTAssertNil(try decoder.nextPayload())
        decoder.append(Array(WireProtocol.preface[5...]) + Self.framed([7]))
        XCTAssertEqual(try decoder.nextPayload(), [7])
    }

    func testWrongVersionInPrefaceIsBad() {
        var decoder = FrameDecoder(expectsPreface: true)
        decoder.append(Array("PWIRE/2\n".utf8))
        XCTAssertThrowsError(try decoder.nextPayload()) { XCTAssertEqual($0 as? FramingError, .badPreface) }
    }

    func testOversizedLengthIsRejectedBeforeBufferingThePayload() {
        var decoder = FrameDecoder(maxFrameSize: 1000, expectsPreface: false)
        decoder.append(Self.framed([UInt8](repeating: 0, count: 10)))
        XCTAssertNotNil(try? decoder.nextPayload())
        // Only the 4 length bytes have arrived; the decoder must not wait for (or reserve) 1001.
        decoder.append([0, 0, 0x03, 0xE9])
        XCTAssertThrowsError(try decoder.nextPayload()) {
            XCTAssertEqual($0 as? FramingError, .frameTooLarge(length: 1001, limit: 1000))
        }
        XCTAssertEqual(decoder.allocatedByteCount, 0, "the buffer is released once the stream is dead")
    }

    func testLengthAtTheLimitIsAccepted() throws {
        let payload = [UInt8](repeating: 0xAB, count: 1000)
        var decoder = FrameDecoder(maxFrameSize: 1000, expectsPreface: false)
        decoder.append(Self.framed(payload))
        XCTAssertEqual(try decoder.nextPayload(), payload)
    }

    func testFourGiBLengthPrefix() {
        var decoder = FrameDecoder(expectsPreface: true)
        decoder.append(WireProtocol.preface + [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try decoder.nextPayload()) {
            XCTAssertEqual($0 as? FramingError, .frameTooLarge(length: 4_294_967_295, limit: WireProtocol.defaultMaxFrameSize))
        }
        XCTAssertEqual(FramingError.frameTooLarge(length: 1, limit: 0).statusCode, .resourceExhausted)
    }

    func testIncompletePrefixWaits() throws {
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append([0, 0, 0])
        XCTAssertNil(try decoder.nextPayload())
        decoder.append([2, 5])
        XCTAssertNil(try decoder.nextPayload())
        decoder.append([6])
        XCTAssertEqual(try decoder.nextPayload(), [5, 6])
        XCTAssertNil(try decoder.nextPayload())
    }

    /// Many small frames, each delivered in pieces that straddle frame boundaries: the bytes moved by
    /// compaction stay below the bytes delivered, however many frames go through.
    func testBufferManagementIsLinear() throws {
        for frameCount in [1_000, 10_000] {
            let payload = [UInt8](repeating: 1, count: 100)
            let frame = Self.framed(payload)
            var decoder = FrameDecoder(expectsPreface: false)
            var delivered = 0
            // Chunks of 4093 bytes (prime, so boundaries fall everywhere) as a socket would deliver.
            let stream = [[UInt8]](repeating: frame, count: frameCount).flatMap { $0 }
            var offset = 0
            var decoded = 0
            while offset < stream.count {
                let n = min(4093, stream.count - offset)
                stream[offset..<(offset + n)].withUnsafeBytes { decoder.append($0) }
                offset += n
                delivered += n
                while try decoder.nextPayload() != nil { decoded += 1 }
            }
            XCTAssertEqual(decoded, frameCount)
            let stats = decoder.statistics
            XCTAssertLessThanOrEqual(stats.bytesMoved, delivered, "moved \(stats.bytesMoved) for \(delivered) delivered")
            XCTAssertLessThanOrEqual(stats.allocations, 2)
        }
    }

    /// One large frame arriving in small reads: the buffer doubles as bytes arrive, so the bytes
    /// moved stay below twice the frame's size and the allocations are logarithmic.
    func testLargeFrameGrowsTheBufferGeometrically() throws {
        let payload = [UInt8](repeating: 3, count: 1_000_000)
        let stream = Self.framed(payload)
        var decoder = FrameDecoder(expectsPreface: false)
        var offset = 0
        var got: [UInt8]?
        while offset < stream.count {
            let n = min(1500, stream.count - offset)
            stream[offset..<(offset + n)].withUnsafeBytes { decoder.append($0) }
            offset += n
            XCTAssertLessThanOrEqual(decoder.allocatedByteCount, max(FrameDecoder.initialCapacity, 2 * offset))
            if let p = try decoder.nextPayload() { got = p }
        }
        XCTAssertEqual(got, payload)
        XCTAssertLessThanOrEqual(decoder.statistics.allocations, 8)
        XCTAssertLessThanOrEqual(decoder.statistics.bytesMoved, 2 * stream.count)
    }

    /// A peer that announces a frame within the limit and then stalls costs what it sent, not what
    /// it announced.
    func testAnnouncedLengthIsNotReservedAhead() throws {
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append([0x00, 0x40, 0x00, 0x00, 1, 2, 3])  // 4 MiB announced, 3 bytes sent
        XCTAssertNil(try decoder.nextPayload())
        XCTAssertLessThanOrEqual(decoder.allocatedByteCount, FrameDecoder.initialCapacity)
    }

    /// Steady 64 KiB reads that end mid-frame must not shrink and regrow the buffer on every read.
    func testSteadyLargeReadsDoNotReallocate() throws {
        let frame = Self.framed([UInt8](repeating: 5, count: 1000))
        let stream = [[UInt8]](repeating: frame, count: 7000).flatMap { $0 }
        var decoder = FrameDecoder(expectsPreface: false)
        var offset = 0
        var decoded = 0
        while offset < stream.count {
            let start = offset
            offset += decoder.withWritableTail(minimumCapacity: 65536) { tail in
                let n = min(65536, stream.count - start)
                stream.withUnsafeBytes { tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + n)])) }
                return n
            }
            while try decoder.nextPayload() != nil { decoded += 1 }
        }
        XCTAssertEqual(decoded, 7000)
        XCTAssertLessThanOrEqual(decoder.statistics.allocations, 3, "\(decoder.statistics)")
        XCTAssertLessThanOrEqual(decoder.statistics.bytesMoved, stream.count / 10, "\(decoder.statistics)")
    }

    func testBufferShrinksBackAfterALargeFrame() throws {
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append(Self.framed([UInt8](repeating: 9, count: 3_000_000)) + Self.framed([1]) + [0, 0])
        XCTAssertGreaterThanOrEqual(decoder.allocatedByteCount, 3_000_000)
        XCTAssertEqual(try decoder.nextPayload()?.count, 3_000_000)
        XCTAssertLessThanOrEqual(decoder.allocatedByteCount, FrameDecoder.retainedCapacity)
        XCTAssertEqual(try decoder.nextPayload(), [1])
        XCTAssertNil(try decoder.nextPayload())
        XCTAssertEqual(decoder.bufferedByteCount, 2)

        // Fully drained after a large frame: nothing stays allocated.
        var idle = FrameDecoder(expectsPreface: false)
        idle.append(Self.framed([UInt8](repeating: 9, count: 200_000)))
        XCTAssertNotNil(try idle.nextPayload())
        XCTAssertEqual(idle.allocatedByteCount, 0)
    }

    func testNoAllocationBeforeTheFirstByte() {
        let decoder = FrameDecoder(expectsPreface: true)
        XCTAssertEqual(decoder.allocatedByteCount, 0)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }
}
