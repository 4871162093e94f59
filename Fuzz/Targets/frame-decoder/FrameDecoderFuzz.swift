import FuzzSupport
@testable import PushwireWire

/// libFuzzer target: `FrameDecoder` over a byte stream (preface, length prefixes, `Frame`s).
///
/// Input: one choice byte (bit 0: the stream starts with the preface; bits 1–2: the frame size
/// limit; bits 3–7: how the stream is cut into reads), then the stream. Oracles:
/// - the outcomes (frames and errors, in order) do not depend on how the stream is cut into reads,
///   nor on whether reads are appended or written into `withWritableTail`;
/// - every frame decoded re-encodes (protobuf-c) to bytes that decode to the same frame;
/// - a drained decoder keeps at most `retainedCapacity` bytes allocated, and one that failed none.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let expectsPreface = choice & 1 == 1
    let limits = [WireProtocol.defaultMaxFrameSize, 16, 300, 65_536]
    let maxFrameSize = limits[Int(choice >> 1) & 3]
    let stream = input.rest

    let whole = decodeAll(stream, cuts: [stream.count], expectsPreface: expectsPreface, maxFrameSize: maxFrameSize, tail: false)
    let cuts = readSizes(count: stream.count, seed: UInt64(choice >> 3))
    let pieces = decodeAll(stream, cuts: cuts, expectsPreface: expectsPreface, maxFrameSize: maxFrameSize, tail: true)
    require(whole.outcomes == pieces.outcomes,
            "outcomes differ with reads of \(cuts) bytes: \(whole.outcomes) vs \(pieces.outcomes); stream \(hex(stream))")
    require(whole.buffered == pieces.buffered, "buffered bytes differ: \(whole.buffered) vs \(pieces.buffered)")

    // One decoder for every re-encoded frame of the input, each decoded alone (the decoder is
    // drained before the next is appended): a decoder per frame allocated and zeroed a 16 KiB
    // buffer for each frame of the stream.
    var again = FrameDecoder(maxFrameSize: WireProtocol.defaultMaxFrameSize, expectsPreface: false)
    var encoded: [UInt8] = []
    for case .frame(let frame) in whole.outcomes {
        encoded.removeAll(keepingCapacity: true)
        frame.encode(appendingTo: &encoded, lengthPrefixed: true)
        again.append(encoded)
        let decoded = Result { () throws(FramingError) in try again.nextFrame() }
        require(decoded == .success(frame), "frame \(frame) re-encoded as \(hex(encoded)) decodes as \(decoded)")
        require(again.bufferedByteCount == 0, "frame \(frame) re-encoded as \(hex(encoded)) leaves \(again.bufferedByteCount) bytes")
    }
    return 0
}

/// What decoding a stream gave.
private struct Decoded {
    var outcomes: [Outcome] = []
    var buffered = 0
}

private enum Outcome: Equatable {
    case frame(Frame)
    case error(FramingError)
}

/// Feeds `stream` in reads of `cuts` bytes, calling `nextFrame()` until it returns nil after each.
private func decodeAll(
    _ stream: UnsafeRawBufferPointer, cuts: [Int], expectsPreface: Bool, maxFrameSize: Int, tail: Bool
) -> Decoded {
    var decoder = FrameDecoder(maxFrameSize: maxFrameSize, expectsPreface: expectsPreface)
    var decoded = Decoded()
    var start = 0
    reads: for cut in cuts {
        let read = UnsafeRawBufferPointer(rebasing: stream[start..<(start + cut)])
        start += cut
        if tail {
            decoder.withWritableTail(minimumCapacity: read.count) { free in
                free.copyMemory(from: read)
                return read.count
            }
        } else {
            decoder.append(read)
        }
        while true {
            do {
                guard let frame = try decoder.nextFrame() else { break }
                decoded.outcomes.append(.frame(frame))
            } catch {
                decoded.outcomes.append(.error(error))
                switch error {
                case .badPreface, .frameTooLarge:
                    // The stream is over: every later call throws the same error again.
                    let again = Result { () throws(FramingError) in try decoder.nextFrame() }
                    require(again == .failure(error), "after \(error) the decoder gave \(again)")
                    require(decoder.allocatedByteCount == 0, "a failed decoder keeps \(decoder.allocatedByteCount) bytes")
                    break reads
                case .undecodableFrame, .emptyFrame:
                    continue
                }
            }
        }
        if decoder.bufferedByteCount == 0 {
            require(decoder.allocatedByteCount <= FrameDecoder.retainedCapacity,
                    "a drained decoder keeps \(decoder.allocatedByteCount) bytes")
        }
    }
    decoded.buffered = decoder.bufferedByteCount
    return decoded
}

/// Read sizes (at least 1 byte each) that add up to `count`, from a small deterministic generator.
private func readSizes(count: Int, seed: UInt64) -> [Int] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1
    var sizes: [Int] = []
    var left = count
    while left > 0 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let size = min(left, 1 + Int(state % 64))
        sizes.append(size)
        left -= size
    }
    return sizes
}
