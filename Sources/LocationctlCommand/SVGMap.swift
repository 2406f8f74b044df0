import Foundation
import CoreLocationEngine
import CoreLocationGeocoding

/// Writes a `RenderScene` as a standalone SVG map: country borders, regions, fixes with their
/// accuracy circles, crossings, visits, a scale bar and a legend.
struct SVGMap {
    enum Palette {
        static let sea = "#cfe3f2"
        static let land = "#f4f1e8"
        static let border = "#8c8577"
        static let region = "#e0007a"
        static let regionStroke = "#a8005b"
        static let accuracy = "#2a7fff"
        static let track = "#1f5fbf"
        static let uploaded = "#7b2fbf"
        static let entry = "#14913a"
        static let exit = "#d8361b"
        static let visit = "#ff9a1f"
        static let visitStroke = "#b35f00"
    }

    var scene: RenderScene
    var projection: MapProjection
    /// Country rings to draw (already selected to meet the visible box).
    var borders: [Gazetteer.BorderRing]

    func render() -> String {
        var svg = SVGWriter(width: projection.width, height: projection.height)
        svg.rect(x: 0, y: 0, width: projection.width, height: projection.height, attributes: "fill=\"\(Palette.sea)\"")
        drawBorders(&svg)
        drawRegions(&svg)
        for layer in scene.layers { drawLayer(layer, into: &svg) }
        drawCrossings(&svg)
        drawVisits(&svg)
        drawScaleBar(&svg)
        drawLegend(&svg)
        drawTitle(&svg)
        return svg.finish()
    }

    // MARK: Layers

    private func drawBorders(_ svg: inout SVGWriter) {
        let clip = ClipRect(minX: -20, minY: -20, maxX: projection.width + 20, maxY: projection.height + 20)
        var paths: [Int: String] = [:]
        var order: [Int] = []
        for ring in borders {
            var points: [(x: Double, y: Double)] = []
            points.reserveCapacity(ring.latitudes.count)
            for (latitude, longitude) in zip(ring.latitudes, ring.longitudes) {
                let p = projection.point(latitude: latitude, longitude: longitude)
                if let last = points.last, abs(last.x - p.x) < 0.5 && abs(last.y - p.y) < 0.5 { continue }
                points.append(p)
            }
            let clipped = clip.clip(points)
            guard clipped.count >= 3 else { continue }
            if paths[ring.country] == nil { order.append(ring.country) }
            paths[ring.country, default: ""] += SVGWriter.pathData(clipped, closed: true)
        }
        svg.open("g", "fill=\"\(Palette.land)\" stroke=\"\(Palette.border)\" stroke-width=\"1\" fill-rule=\"evenodd\"")
        for country in order {
            if let data = paths[country] { svg.element("path", "d=\"\(data)\"") }
        }
        svg.close("g")
    }

    private func drawRegions(_ svg: inout SVGWriter) {
        for region in scene.regions {
            let centre = projection.point(latitude: region.latitude, longitude: region.longitude)
            let radius = region.radius * projection.pixelsPerMetre(atLatitude: region.latitude)
            svg.circle(
                x: centre.x, y: centre.y, radius: radius,
                attributes: "fill=\"\(Palette.region)\" fill-opacity=\"0.35\" stroke=\"\(Palette.regionStroke)\" stroke-width=\"2\""
            )
            svg.text(
                region.identifier, x: centre.x, y: centre.y - radius - 6,
                attributes: "text-anchor=\"middle\" fill=\"\(Palette.regionStroke)\" font-weight=\"bold\" \(Self.halo)"
            )
        }
    }

    private func drawLayer(_ layer: RenderScene.TrackLayer, into svg: inout SVGWriter) {
        let points = layer.fixes.map { projection.point(latitude: $0.latitude, longitude: $0.longitude) }
        switch layer.kind {
        case .raw:
            svg.open("g", "fill=\"\(Palette.accuracy)\" fill-opacity=\"0.10\"")
            for (fix, point) in zip(layer.fixes, points) where fix.horizontalAccuracy > 0 {
                let radius = fix.horizontalAccuracy * projection.pixelsPerMetre(atLatitude: fix.latitude)
                if radius >= 1.5 { svg.circle(x: point.x, y: point.y, radius: radius, attributes: "") }
            }
            svg.close("g")
            if points.count > 1 {
                svg.element(
                    "path",
                    "d=\"\(SVGWriter.pathData(points, closed: false))\" fill=\"none\" stroke=\"\(Palette.track)\" "
                        + "stroke-width=\"1.5\" stroke-linejoin=\"round\""
                )
            }
            let dot = points.count > 2_000 ? 1.2 : 2.2
            svg.open("g", "fill=\"\(Palette.track)\"")
            for point in points { svg.circle(x: point.x, y: point.y, radius: dot, attributes: "") }
            svg.close("g")
        case .uploaded:
            svg.open("g", "fill=\"none\" stroke=\"\(Palette.uploaded)\" stroke-width=\"1.5\"")
            for point in points { svg.rect(x: point.x - 3, y: point.y - 3, width: 6, height: 6, attributes: "") }
            svg.close("g")
        }
    }

    private func drawCrossings(_ svg: inout SVGWriter) {
        for crossing in scene.crossings {
            let p = projection.point(latitude: crossing.fix.latitude, longitude: crossing.fix.longitude)
            let colour = crossing.entered ? Palette.entry : Palette.exit
            svg.circle(x: p.x, y: p.y, radius: 6, attributes: "fill=\"white\" stroke=\"\(colour)\" stroke-width=\"3\"")
        }
    }

    private func drawVisits(_ svg: inout SVGWriter) {
        for visit in Self.distinctVisits(scene.visits) {
            let p = projection.point(latitude: visit.latitude, longitude: visit.longitude)
            let radius = max(6, visit.horizontalAccuracy * projection.pixelsPerMetre(atLatitude: visit.latitude))
            svg.circle(
                x: p.x, y: p.y, radius: radius,
                attributes: "fill=\"\(Palette.visit)\" fill-opacity=\"0.30\" stroke=\"\(Palette.visitStroke)\" stroke-width=\"2\""
            )
            svg.circle(x: p.x, y: p.y, radius: 4, attributes: "fill=\"\(Palette.visitStroke)\"")
            svg.text(
                Self.visitLabel(visit), x: p.x, y: p.y - radius - 6,
                attributes: "text-anchor=\"middle\" fill=\"\(Palette.visitStroke)\" font-weight=\"bold\" \(Self.halo)"
            )
        }
    }

    /// A white outline under label text, so a label stays readable over the track.
    static let halo = "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\" stroke-linejoin=\"round\""

    /// The engine reports a visit at arrival and again at departure: keep the latest of each.
    static func distinctVisits(_ visits: [Visit]) -> [Visit] {
        var result: [Visit] = []
        for visit in visits {
            if let index = result.firstIndex(where: { $0.arrival == visit.arrival && visit.arrival != nil }) {
                result[index] = visit
            } else {
                result.append(visit)
            }
        }
        return result
    }

    static func visitLabel(_ visit: Visit) -> String {
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).time(includingFractionalSeconds: false)
        let arrival = visit.arrival.map { $0.formatted(format) } ?? "?"
        let departure = visit.departure.map { $0.formatted(format) } ?? "…"
        return "visit \(arrival)–\(departure) UTC"
    }

    // MARK: Furniture

    private func drawScaleBar(_ svg: inout SVGWriter) {
        let latitude = projection.coordinate(x: projection.width / 2, y: projection.height / 2).latitude
        let perMetre = projection.pixelsPerMetre(atLatitude: latitude)
        let metres = ScaleBar.niceLength(maximum: projection.width / 4 / perMetre)
        let length = metres * perMetre
        let x = 20.0
        let y = projection.height - 28
        svg.rect(x: x - 8, y: y - 22, width: length + 16, height: 38, attributes: "fill=\"white\" fill-opacity=\"0.85\"")
        for part in 0..<4 {
            let colour = part % 2 == 0 ? "black" : "white"
            svg.rect(
                x: x + length * Double(part) / 4, y: y, width: length / 4, height: 6,
                attributes: "fill=\"\(colour)\" stroke=\"black\" stroke-width=\"0.8\""
            )
        }
        svg.text("0", x: x, y: y - 5, attributes: "text-anchor=\"middle\"")
        svg.text(ScaleBar.label(metres), x: x + length, y: y - 5, attributes: "text-anchor=\"middle\"")
    }

    private func drawLegend(_ svg: inout SVGWriter) {
        var entries: [(symbol: (inout SVGWriter, Double, Double) -> Void, label: String)] = []
        let raw = scene.layers.filter { $0.kind == .raw }.reduce(0) { $0 + $1.fixes.count }
        entries.append(({ $0.circle(x: $1, y: $2, radius: 3, attributes: "fill=\"\(Palette.track)\"") }, "fixes (\(raw))"))
        entries.append((
            { $0.circle(x: $1, y: $2, radius: 7, attributes: "fill=\"\(Palette.accuracy)\" fill-opacity=\"0.25\"") },
            "horizontal accuracy"
        ))
        let uploaded = scene.layers.filter { $0.kind == .uploaded }.reduce(0) { $0 + $1.fixes.count }
        if uploaded > 0 {
            entries.append((
                { $0.rect(x: $1 - 3, y: $2 - 3, width: 6, height: 6, attributes: "fill=\"none\" stroke=\"\(Palette.uploaded)\"") },
                "uploaded (\(uploaded))"
            ))
        }
        if !scene.regions.isEmpty {
            entries.append((
                {
                    $0.circle(x: $1, y: $2, radius: 7, attributes:
                        "fill=\"\(Palette.region)\" fill-opacity=\"0.35\" stroke=\"\(Palette.regionStroke)\" stroke-width=\"2\"")
                },
                "region (\(scene.regions.count))"
            ))
            let entries_ = scene.crossings.filter(\.entered).count
            entries.append((
                { $0.circle(x: $1, y: $2, radius: 5, attributes: "fill=\"white\" stroke=\"\(Palette.entry)\" stroke-width=\"3\"") },
                "entry (\(entries_))"
            ))
            entries.append((
                { $0.circle(x: $1, y: $2, radius: 5, attributes: "fill=\"white\" stroke=\"\(Palette.exit)\" stroke-width=\"3\"") },
                "exit (\(scene.crossings.count - entries_))"
            ))
        }
        if !scene.visits.isEmpty {
            entries.append((
                { $0.circle(x: $1, y: $2, radius: 7, attributes: "fill=\"\(Palette.visit)\" fill-opacity=\"0.3\" stroke=\"\(Palette.visitStroke)\" stroke-width=\"2\"") },
                "visit (\(Self.distinctVisits(scene.visits).count))"
            ))
        }
        entries.append((
            { $0.rect(x: $1 - 7, y: $2 - 5, width: 14, height: 10, attributes: "fill=\"\(Palette.land)\" stroke=\"\(Palette.border)\"") },
            "country (Natural Earth)"
        ))
        let width = 200.0
        let rowHeight = 22.0
        let x = projection.width - width - 12
        let y = 12.0
        svg.rect(
            x: x, y: y, width: width, height: rowHeight * Double(entries.count) + 34,
            attributes: "fill=\"white\" fill-opacity=\"0.9\" stroke=\"#666\" rx=\"4\""
        )
        svg.text("Legend", x: x + 10, y: y + 20, attributes: "font-weight=\"bold\"")
        for (row, entry) in entries.enumerated() {
            let rowY = y + 38 + rowHeight * Double(row)
            entry.symbol(&svg, x + 20, rowY - 4)
            svg.text(entry.label, x: x + 38, y: rowY)
        }
    }

    private func drawTitle(_ svg: inout SVGWriter) {
        var subtitle = "Web Mercator"
        let fixes = scene.allFixes
        if let first = fixes.first?.timestamp, let last = fixes.last?.timestamp {
            let format = Date.ISO8601FormatStyle(timeZone: .gmt)
            let span = first == last ? first.formatted(format) : "\(first.formatted(format)) – \(last.formatted(format))"
            subtitle = span + " · " + subtitle
        }
        svg.rect(x: 12, y: 12, width: 12 + 7.5 * Double(max(scene.title.count, subtitle.count / 2 + 10)), height: 46,
                 attributes: "fill=\"white\" fill-opacity=\"0.85\" rx=\"4\"")
        svg.text(scene.title, x: 20, y: 32, attributes: "font-size=\"16\" font-weight=\"bold\"")
        svg.text(subtitle, x: 20, y: 50, attributes: "font-size=\"11\" fill=\"#444\"")
    }
}

/// Round lengths for a scale bar.
enum ScaleBar {
    /// The largest 1, 2 or 5 × 10ⁿ metres not above `maximum` (at least 1 m).
    static func niceLength(maximum: Double) -> Double {
        guard maximum.isFinite, maximum > 1 else { return 1 }
        let power = pow(10, floor(log10(maximum)))
        for factor in [5.0, 2, 1] where factor * power <= maximum { return factor * power }
        return power
    }

    static func label(_ metres: Double) -> String {
        metres >= 1_000 ? "\(Int(metres / 1_000)) km" : "\(Int(metres)) m"
    }
}
