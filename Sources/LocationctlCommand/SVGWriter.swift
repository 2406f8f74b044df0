import Foundation

/// A minimal SVG text builder: numbers with two decimals, text escaped for XML.
struct SVGWriter {
    private var text: String

    init(width: Double, height: Double) {
        let w = Self.number(width)
        let h = Self.number(height)
        text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)" \
            font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">

            """
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.2f", rounded)
    }

    static func escape(_ string: String) -> String {
        var result = ""
        for character in string {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    static func pathData(_ points: [(x: Double, y: Double)], closed: Bool) -> String {
        var data = ""
        for (index, point) in points.enumerated() {
            data += (index == 0 ? "M" : "L") + number(point.x) + " " + number(point.y)
        }
        return closed ? data + "Z" : data
    }

    mutating func open(_ name: String, _ attributes: String) { text += "<\(name) \(attributes)>\n" }
    mutating func close(_ name: String) { text += "</\(name)>\n" }
    mutating func element(_ name: String, _ attributes: String) { text += "<\(name) \(attributes)/>\n" }

    mutating func circle(x: Double, y: Double, radius: Double, attributes: String) {
        element("circle", "cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"\(Self.number(radius))\" \(attributes)")
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, attributes: String) {
        element(
            "rect",
            "x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\" "
                + "height=\"\(Self.number(height))\" \(attributes)"
        )
    }

    mutating func text(_ string: String, x: Double, y: Double, attributes: String = "") {
        text += "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" \(attributes)>\(Self.escape(string))</text>\n"
    }

    func finish() -> String { text + "</svg>\n" }
}

/// Sutherland–Hodgman clipping of a polygon to an axis-aligned rectangle. The result fills the same
/// area inside the rectangle (a concave polygon may gain edges along the rectangle's sides, which is
/// why the clip rectangle is drawn a little larger than the canvas).
struct ClipRect {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    func clip(_ polygon: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        var points = polygon
        points = clip(points, inside: { $0.x >= minX }, cross: { a, b in Self.atX(minX, a, b) })
        points = clip(points, inside: { $0.x <= maxX }, cross: { a, b in Self.atX(maxX, a, b) })
        points = clip(points, inside: { $0.y >= minY }, cross: { a, b in Self.atY(minY, a, b) })
        points = clip(points, inside: { $0.y <= maxY }, cross: { a, b in Self.atY(maxY, a, b) })
        return points
    }

    private func clip(
        _ points: [(x: Double, y: Double)],
        inside: ((x: Double, y: Double)) -> Bool,
        cross: ((x: Double, y: Double), (x: Double, y: Double)) -> (x: Double, y: Double)
    ) -> [(x: Double, y: Double)] {
        guard let last = points.last else { return [] }
        var result: [(x: Double, y: Double)] = []
        var previous = last
        for point in points {
            let pointInside = inside(point)
            if pointInside != inside(previous) { result.append(cross(previous, point)) }
            if pointInside { result.append(point) }
            previous = point
        }
        return result
    }

    private static func atX(_ x: Double, _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    private static func atY(_ y: Double, _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y)
    }
}
