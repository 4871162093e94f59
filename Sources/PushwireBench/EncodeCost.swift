import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// `pushwire-bench encode-cost`: what building one per-call RegisterDevice request costs, patched
/// from a template (what `register` does) against encoding it through the generated wrappers
/// (RegisterDeviceRequest, then the Request envelope), in ns per call. Prints one line per way.
func printEncodeCost() {
    let setup = BenchSetup(application: "A1B2C-3D4E5", token: nil, categoriesVersion: 1)
    guard let template = try? registerTemplate(setup: setup, pool: nil, timeoutMS: 0) else {
        printError("pushwire-bench: encode-cost: no template")
        exit(1)
    }
    let iterations = 1_000_000
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20)
    var sink = 0

    var began = monotonicNanos()
    for n in 0..<iterations {
        template.appendFrame(callID: UInt32(truncatingIfNeeded: n | 1), counter: UInt64(n), to: &out)
        if out.count > 1 << 19 { sink &+= out.count; out.removeAll(keepingCapacity: true) }
    }
    let patched = Double(monotonicNanos() - began) / Double(iterations)

    out.removeAll(keepingCapacity: true)
    began = monotonicNanos()
    for n in 0..<iterations {
        HotFrames.appendRequestFrame(callID: UInt32(truncatingIfNeeded: n | 1), request: template.bytes, to: &out)
        if out.count > 1 << 19 { sink &+= out.count; out.removeAll(keepingCapacity: true) }
    }
    let fixed = Double(monotonicNanos() - began) / Double(iterations)

    out.removeAll(keepingCapacity: true)
    let wrapperIterations = iterations / 4
    began = monotonicNanos()
    for n in 0..<wrapperIterations {
        let digits = PatchableRequest.text(UInt64(n))
        let message = RegisterDeviceRequest(
            application: setup.application, hwid: benchHwid(digits),
            pushToken: String(repeating: "a1", count: 26) + digits, deviceType: .ios, language: "en", timezone: 3600,
            appVersion: "1.0")
        let request = Request(method: Methods.Devices.registerDevice.path, message: message.encode()).encode()
        HotFrames.appendRequestFrame(callID: UInt32(truncatingIfNeeded: n | 1), request: request, to: &out)
        if out.count > 1 << 19 { sink &+= out.count; out.removeAll(keepingCapacity: true) }
    }
    let wrapped = Double(monotonicNanos() - began) / Double(wrapperIterations)
    print(String(format: "register request, fixed bytes:        %7.1f ns/call", fixed))
    print(String(format: "register request, patched template:   %7.1f ns/call", patched))
    print(String(format: "register request, generated wrappers: %7.1f ns/call", wrapped))
    if sink == -1 { print(sink) }  // keeps the loops' work observable
}
