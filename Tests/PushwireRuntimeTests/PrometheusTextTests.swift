import XCTest
@testable import PushwireRuntime

/// The exposition writer: families, label escapes and number formats as the text format wants.
final class PrometheusTextTests: XCTestCase {
    func testFamiliesSamplesEscapesAndNumbers() {
        var out = PrometheusText()
        out.family("pushwire_x_total", "counter", help: "Things.")
        out.sample("pushwire_x_total", [("path", #"a\b"c"#), ("line", "one\ntwo")], UInt64(18_446_744_073_709_551_615))
        out.sample("pushwire_x_total", [("path", "plain/é")], UInt64(0))
        out.gauge("pushwire_y", help: "A gauge.", 0.25)
        out.gauge("pushwire_z", help: "Whole.", 1_234_567)
        out.gauge("pushwire_n", help: "Negative.", -3)
        out.gauge("pushwire_inf", help: "Infinite.", .infinity)
        XCTAssertEqual(out.text, """
            # HELP pushwire_x_total Things.
            # TYPE pushwire_x_total counter
            pushwire_x_total{path="a\\\\b\\"c",line="one\\ntwo"} 18446744073709551615
            pushwire_x_total{path="plain/é"} 0
            # HELP pushwire_y A gauge.
            # TYPE pushwire_y gauge
            pushwire_y 0.25
            # HELP pushwire_z Whole.
            # TYPE pushwire_z gauge
            pushwire_z 1234567
            # HELP pushwire_n Negative.
            # TYPE pushwire_n gauge
            pushwire_n -3
            # HELP pushwire_inf Infinite.
            # TYPE pushwire_inf gauge
            pushwire_inf +Inf

            """)
    }
}
