"""How a figure is written in a table: rates in k/s or M/s, microseconds, ratios, or the reason it is
n/a."""




def number(value, key, unit=""):
    if isinstance(value, str):
        return value
    v = value[key]
    if key == "harness_us":
        return f"{v:.2f}"
    if key == "rps":
        return f"{v / 1e6:.3f} M/s" if v >= 1e6 else f"{v / 1e3:.1f} k/s"
    return f"{v:.1f}{unit}"


def side(value, key):
    """A second rate carried in the same figure (the peer measured in the same run)."""
    return value if isinstance(value, str) else number({"rps": value[key]}, "rps")


def own_ratio(value):
    return value if isinstance(value, str) else f"{value['ratio']:.2f}×"


def ratio(a, b, key, invert=False):
    if isinstance(a, str) or isinstance(b, str) or not b[key] or not a[key]:
        return "n/a"
    r = (b[key] / a[key]) if invert else (a[key] / b[key])
    return f"{r:.2f}×"
