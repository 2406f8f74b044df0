import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

@Suite struct ReducedAccuracyTests {
    let grid = ReducedAccuracyGrid()

    @Test(arguments: [0.0, 35.0, 48.8584, 60.0, 75.0, -33.9, 89.99])
    func cellsAreKilometresWideAtEveryLatitude(latitude: Double) throws {
        let cell = try #require(grid.cell(latitude: latitude, longitude: 12.3))
        let radius = grid.coveringRadius(of: cell)
        // Cells of 0.045° ≈ 5 km: half-diagonal ≈ 3.5 km; polar caps are wider but bounded.
        #expect(radius > 2_500 && radius < 4_500, "radius \(radius) at \(latitude)")
        #expect(cell.south <= latitude && latitude < cell.north + 1e-12)
        #expect(cell.west <= 12.3 && 12.3 < cell.east)
    }

    @Test func invalidCoordinatesHaveNoCell() {
        #expect(grid.cell(latitude: .nan, longitude: 0) == nil)
        #expect(grid.cell(latitude: 91, longitude: 0) == nil)
        #expect(grid.cell(latitude: 0, longitude: .infinity) == nil)
    }

    /// Property: whatever precise fixes come in, a reduced client sees only cell centres that the
    /// cell alone determines, no more often than every 15 minutes, with an honest accuracy and no
    /// speed, course or altitude.
    @Test func noPreciseCoordinateLeaks() {
        var generator = SeededGenerator(seed: 0x5EED_CAFE)
        var d = driver([gnss], authorization: reducedWhenInUse)
        d.send(.client(app, .startUpdates(UpdateRequest(desiredAccuracy: -2))))
        var precise: [(Double, Double, Fix)] = []
        var position = (48.85, 2.29)
        for second in 0..<(6 * 3600) {
            // A random walk around Paris with jumps, so fixes cross many cells.
            position.0 += Double.random(in: -0.0004...0.0004, using: &generator)
            position.1 += Double.random(in: -0.0006...0.0006, using: &generator)
            var f = fix(position.0, position.1, accuracy: Double.random(in: 3...30, using: &generator), at: Double(second))
            f.speed = 3
            f.course = 90
            f.altitude = 35
            f.verticalAccuracy = 4
            d.send(.source(gnss.id, .fix(f)))
            precise.append((d.now, f.latitude, f))
            d.advance(by: 1)
        }
        let deliveredWithTimes = d.actions.compactMap { entry -> (Double, Fix)? in
            if case let .deliver(_, delivery) = entry.action { return (entry.time, delivery.fixes[0]) }
            return nil
        }
        #expect(deliveredWithTimes.count >= 20 && deliveredWithTimes.count <= 25)
        var lastTime = -Double.infinity
        for (time, out) in deliveredWithTimes {
            #expect(time - lastTime >= 900)
            lastTime = time
            // The output is exactly the centre of its own cell: applying the grid again changes nothing.
            let cell = grid.cell(latitude: out.latitude, longitude: out.longitude)
            #expect(cell?.centerLatitude == out.latitude && cell?.centerLongitude == out.longitude)
            #expect(out.speed == -1 && out.course == -1 && out.verticalAccuracy == -1 && out.altitude == 0)
            // The precise fix of that moment lies within the stated accuracy.
            if let source = precise.last(where: { $0.0 <= time }) {
                let d = Geodesic.wgs84.inverse(
                    latitude1: out.latitude, longitude1: out.longitude,
                    latitude2: source.2.latitude, longitude2: source.2.longitude
                ).distance
                #expect(d <= out.horizontalAccuracy)
            }
            // And no precise coordinate ever comes out.
            #expect(!precise.contains { $0.2.latitude == out.latitude || $0.2.longitude == out.longitude })
        }
    }

    @Test func everyPointOfACellGivesTheSameOutput() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2000 {
            let lat = Double.random(in: -89.9...89.9, using: &generator)
            let lon = Double.random(in: -180..<180, using: &generator)
            guard let cell = grid.cell(latitude: lat, longitude: lon) else {
                Issue.record("no cell for \(lat), \(lon)")
                continue
            }
            let inside = (
                Double.random(in: cell.south..<cell.north, using: &generator),
                Double.random(in: cell.west..<cell.east, using: &generator)
            )
            let a = grid.coarsen(fix(lat, lon))
            let b = grid.coarsen(fix(inside.0, inside.1))
            #expect(a?.latitude == b?.latitude && a?.longitude == b?.longitude)
        }
    }

    @Test func requestLocationWithinTheRefreshIntervalRepeatsTheOldCoarseFix() {
        var d = driver([gnss], authorization: reducedWhenInUse)
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: 5))))
        d.send(.source(gnss.id, .fix(fix(48.85, 2.29, at: 0))))
        let first = d.deliveries(to: app).first?.fixes.first
        #expect(first != nil)
        #expect(d.deliveries(to: app).first?.accuracyLimited == true)
        d.advance(by: 300)
        d.send(.client(app, .requestLocation(UpdateRequest(desiredAccuracy: 5))))
        let second = d.deliveries(to: app).last?.fixes.first
        #expect(d.deliveries(to: app).count == 2)
        #expect(second == first)
    }
}
