// pushwire-codec-bench: encode + decode of a RegisterDeviceRequest and of a RegisterDeviceResponse
// (3 categories × 4 buttons) through the generated Swift wrappers and through raw protobuf-c calls
// on the same data. Run in release mode:
//   swift build -c release --product pushwire-codec-bench && .build/release/pushwire-codec-bench
// Prints CPU ns/op (median of 5 runs of ~0.3 s of thread CPU time), MB/s of encoded message, and the Swift/C ratio.
import CProtobufC
import PushwireWire

#if canImport(Glibc)
import Glibc
#endif

/// CPU nanoseconds of this thread: figures stay comparable on a machine shared with other work
/// (wall time would count the time other processes hold the core).
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Seconds per run: 0.3, or CODEC_BENCH_SECONDS (e.g. 0.01 under valgrind).
let runSeconds: Double = getenv("CODEC_BENCH_SECONDS").flatMap { Double(String(cString: $0)) } ?? 0.3

/// Runs `body` in batches for about `seconds`, five times; returns the median ns per call.
func measure(seconds: Double = runSeconds, _ body: () -> Void) -> Double {
    for _ in 0..<1000 { body() }  // warm up
    var results: [Double] = []
    for _ in 0..<5 {
        let budget = UInt64(seconds * 1e9)
        let start = now()
        var calls = 0
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<256 { body() }
            calls += 256
            elapsed = now() - start
        } while elapsed < budget
        results.append(Double(elapsed) / Double(calls))
    }
    return results.sorted()[2]
}

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) var sink: UInt64 = 0

func sampleRequest() -> RegisterDeviceRequest {
    RegisterDeviceRequest(
        application: "A1B2C-3D4E5",
        hwid: "8c6f1a9e-2b7d-4c3e-9f10-5a6b7c8d9e0f",
        pushToken: "f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f00",
        deviceType: .ios,
        language: "fr",
        timezone: 3600,
        userID: "user-42",
        appVersion: "2.4.1",
        tags: [
            Tag(name: "plan", value: TagValue(kind: .stringValue("premium"))),
            Tag(name: "age", value: TagValue(kind: .intValue(34))),
            Tag(name: "beta", value: TagValue(kind: .boolValue(true))),
        ],
        knownCategoriesVersion: 12
    )
}

func sampleResponse() -> RegisterDeviceResponse {
    var response = RegisterDeviceResponse(categoriesVersion: 13)
    for c in 0..<3 {
        var category = Category(categoryID: UInt32(65 + c), name: ["YesNo", "Rate", "Reply"][c])
        for b in 0..<4 {
            var button = Button(id: UInt32(b), label: ["Yes", "No", "Later", "Never"][b])
            if b < 2 { button.localizedLabels = [LocalizedText(language: "fr", text: ["Oui", "Non"][b])] }
            if b == 0 { button.localizedLabels.append(LocalizedText(language: "de", text: "Ja")) }
            button.startApplication = b == 0
            button.destructive = b == 3
            button.behavior = c == 2 && b == 2 ? .textInput : .default
            if button.behavior == .textInput {
                button.textInputButtonTitle = "Send"
                button.textInputPlaceholder = "Your answer"
            }
            category.buttons.append(button)
        }
        response.iosCategories.append(category)
    }
    return response
}

/// Swift wrappers: encode into a reused buffer, then decode it.
func swiftRoundTrip<M: WireMessage>(_ message: M, _ buffer: inout [UInt8]) {
    buffer.removeAll(keepingCapacity: true)
    message.encode(appendingTo: &buffer, lengthPrefixed: false)
    if (try? M(decoding: buffer)) != nil { sink &+= UInt64(buffer.count) }
}

/// The same data as protobuf-c structs, built once (by unpacking the Swift encoding).
func cMessage<M: WireMessage>(_ message: M) -> UnsafeMutablePointer<ProtobufCMessage>? {
    let bytes = message.encode()
    return protobuf_c_message_unpack(M.descriptor, nil, bytes.count, bytes)
}

struct Row {
    var name: String
    var size: Int
    var swiftEncode: Double
    var swiftDecode: Double
    var swiftBoth: Double
    var cEncode: Double
    var cDecode: Double
    var cBoth: Double
}

func bench<M: WireMessage>(_ name: String, _ message: M) -> Row {
    let encoded = message.encode()
    guard (try? M(decoding: encoded)) == message else {
        print("\(name): the Swift round trip changed the message")
        exit(1)
    }
    guard let c = cMessage(message) else {
        print("\(name): protobuf-c could not unpack the sample")
        exit(1)
    }
    defer { protobuf_c_message_free_unpacked(c, nil) }
    var buffer: [UInt8] = []
    buffer.reserveCapacity(encoded.count * 2)
    var out = [UInt8](repeating: 0, count: encoded.count * 2)

    let swiftEncode = measure {
        buffer.removeAll(keepingCapacity: true)
        message.encode(appendingTo: &buffer, lengthPrefixed: false)
        sink &+= UInt64(buffer.count)
    }
    let swiftDecode = measure {
        if (try? M(decoding: encoded)) != nil { sink &+= 1 }
    }
    let swiftBoth = measure { swiftRoundTrip(message, &buffer) }
    let cEncode = measure {
        let size = protobuf_c_message_get_packed_size(c)
        sink &+= UInt64(out.withUnsafeMutableBufferPointer { protobuf_c_message_pack(c, $0.baseAddress) }) &+ UInt64(size)
    }
    let cDecode = measure {
        encoded.withUnsafeBufferPointer { input in
            if let m = protobuf_c_message_unpack(M.descriptor, nil, input.count, input.baseAddress) {
                sink &+= 1
                protobuf_c_message_free_unpacked(m, nil)
            }
        }
    }
    let cBoth = measure {
        out.withUnsafeMutableBufferPointer { output in
            let size = protobuf_c_message_get_packed_size(c)
            _ = protobuf_c_message_pack(c, output.baseAddress)
            if let m = protobuf_c_message_unpack(M.descriptor, nil, size, output.baseAddress) {
                sink &+= 1
                protobuf_c_message_free_unpacked(m, nil)
            }
        }
    }
    return Row(name: name, size: encoded.count, swiftEncode: swiftEncode, swiftDecode: swiftDecode, swiftBoth: swiftBoth,
               cEncode: cEncode, cDecode: cDecode, cBoth: cBoth)
}

func format(_ value: Double, _ decimals: Int = 0) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return decimals == 0 ? String(Int(rounded)) : String(rounded)
}

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
}

// CODEC_BENCH_PROFILE=request-decode|response-decode|request-encode|response-encode loops over one
// path for ~3 s, for `perf record`.
if let profile = getenv("CODEC_BENCH_PROFILE").map({ String(cString: $0) }) {
    let request = sampleRequest(), response = sampleResponse()
    let requestBytes = request.encode(), responseBytes = response.encode()
    var buffer: [UInt8] = []
    _ = measure(seconds: 0.6) {
        switch profile {
        case "request-decode": if (try? RegisterDeviceRequest(decoding: requestBytes)) != nil { sink &+= 1 }
        case "response-decode": if (try? RegisterDeviceResponse(decoding: responseBytes)) != nil { sink &+= 1 }
        case "request-encode": buffer.removeAll(keepingCapacity: true); request.encode(appendingTo: &buffer, lengthPrefixed: false)
        default: buffer.removeAll(keepingCapacity: true); response.encode(appendingTo: &buffer, lengthPrefixed: false)
        }
    }
    exit(0)
}

let rows = [
    bench("RegisterDeviceRequest", sampleRequest()),
    bench("RegisterDeviceResponse 3x4", sampleResponse()),
]
print("pushwire-codec-bench: thread CPU time, median of 5 runs of ~\(runSeconds) s; MB/s = encoded bytes through encode+decode")
print("message                       bytes  path   encode ns  decode ns  enc+dec ns   MB/s")
for row in rows {
    for (path, e, d, b) in [("swift", row.swiftEncode, row.swiftDecode, row.swiftBoth), ("C", row.cEncode, row.cDecode, row.cBoth)] {
        let mbps = Double(row.size) / b * 1000
        print("\(row.name.padding(27))  \(pad(String(row.size), 5))  \(path.padding(5))  \(pad(format(e), 9))  \(pad(format(d), 9))  \(pad(format(b), 10))  \(pad(format(mbps), 5))")
    }
    print("\(row.name.padding(27))  ratio swift/C  encode \(format(row.swiftEncode / row.cEncode, 2))×  decode \(format(row.swiftDecode / row.cDecode, 2))×  enc+dec \(format(row.swiftBoth / row.cBoth, 2))×")
}
if sink == 42 { print("") }

extension String {
    /// Left-aligned in `width` columns.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
