import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import Testing

/// A walk built from legs: stand at a place, or walk to the next one, one fix per `step` seconds.
struct Walk {
    var time: Double = 0
    var latitude: Double
    var longitude: Double
    var step: Double = 2
    var fixes: [Fix] = []
    var noise: SeededGenerator?
    var accuracy: Double = 5

    init(latitude: Double, longitude: Double, noiseSeed: UInt64? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        noise = noiseSeed.map(SeededGenerator.init(seed:))
    }

    mutating func emit() {
        var lat = latitude
        var lon = longitude
        if var generator = noise {
            // Gaussian noise of σ = accuracy/√2 per axis (Box–Muller), so the RMS radius is `accuracy`.
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            let u2 = Double.random(in: 0..<1, using: &generator)
            let r = (accuracy / 2.0.squareRoot()) * (-2 * log(u1)).squareRoot()
            let p = Geodesic.wgs84.direct(latitude1: lat, longitude1: lon, azimuth1: 360 * u2, distance: r)
            lat = p.latitude
            lon = p.longitude
            noise = generator
        }
        fixes.append(fix(lat, lon, accuracy: accuracy, at: time))
    }

    mutating func stay(_ seconds: Double) {
        let end = time + seconds
        while time < end {
            emit()
            time += step
        }
    }

    mutating func walk(metres: Double, azimuth: Double = 90, speed: Double = 1.4) {
        let steps = Int((metres / speed / step).rounded(.up))
        for _ in 0..<steps {
            let p = Geodesic.wgs84.direct(
                latitude1: latitude, longitude1: longitude, azimuth1: azimuth, distance: speed * step)
            latitude = p.latitude
            longitude = p.longitude
            emit()
            time += step
        }
    }
}

func detect(_ fixes: [Fix], parameters: VisitDetector.Parameters = .init()) -> [Visit] {
    var detector = VisitDetector(parameters: parameters)
    return fixes.flatMap { detector.observe($0) }
}

func seconds(_ date: Date?) -> Double? { date.map { $0.timeIntervalSince1970 - 1_700_000_000 } }

@Suite("Visit detector")
struct VisitDetectorTests {
    @Test("walk, stay 10 min, walk on: one arrival at ~5 min, one completed visit with both dates")
    func arrivalThenDeparture() throws {
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 500)  // 358 s of walking
        let stopAt = walk.time
        let stopLatitude = walk.latitude
        let stopLongitude = walk.longitude
        walk.stay(600)
        let leaveAt = walk.time
        walk.walk(metres: 500)
        let visits = detect(walk.fixes)
        try #require(visits.count == 2)
        let arrival = visits[0]
        #expect(arrival.departure == nil)
        // Arrival: the first fix within the 30 m core, i.e. at most ~22 s of walking before the stop.
        let arrived = seconds(arrival.arrival) ?? .nan
        #expect(arrived >= stopAt - 24 && arrived <= stopAt)
        // Decided once the core fixes span 5 minutes (within a fix or two: the arrival is refined
        // against the centre as it stands when the stay is confirmed).
        #expect(abs((seconds(arrival.decidedAt) ?? .nan) - (arrived + 300)) <= 4)
        let completed = visits[1]
        #expect(completed.arrival == arrival.arrival)
        let departed = seconds(completed.departure) ?? .nan
        #expect(departed >= leaveAt && departed <= leaveAt + 24)
        let centreError = Geodesic.wgs84.inverse(
            latitude1: completed.latitude, longitude1: completed.longitude,
            latitude2: stopLatitude, longitude2: stopLongitude
        ).distance
        #expect(centreError < 10)
        #expect(completed.horizontalAccuracy >= centreError)
        #expect(completed.horizontalAccuracy < 30)
    }

    @Test("a stop of 4 minutes is no visit: with the walk in and out of the 30 m core, 4.7 minutes")
    func shortStop() {
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 300)
        walk.stay(240)
        walk.walk(metres: 800)
        #expect(detect(walk.fixes).isEmpty)
    }

    @Test("at the first fix the user is already there: arrival unknown (Apple's distantPast)")
    func unknownArrival() {
        var walk = Walk(latitude: 48.85, longitude: 2.35)
        walk.stay(900)
        walk.walk(metres: 400)
        let visits = detect(walk.fixes)
        #expect(visits.count == 2)
        #expect(visits.allSatisfy { $0.arrival == nil })
        #expect(visits.last?.departure != nil)
    }

    @Test("one wild fix or a short excursion does not end a stay; inaccurate fixes are no evidence")
    func outliersAndExcursions() {
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 300)
        walk.stay(400)
        // A wild fix 2 km away, then back.
        let (farLat, farLon) = east(of: walk.latitude, walk.longitude, metres: 2000)
        walk.fixes.append(fix(farLat, farLon, at: walk.time))
        walk.time += 2
        walk.stay(200)
        // An excursion to 120 m and back: ~20 s beyond the radius, less than the 60 s that end a stay.
        walk.walk(metres: 120, azimuth: 0)
        walk.walk(metres: 120, azimuth: 180)
        walk.stay(200)
        // Ten inaccurate fixes (1.5 km) far away: not evidence of leaving.
        for _ in 0..<10 {
            walk.fixes.append(fix(farLat, farLon, accuracy: 1500, at: walk.time))
            walk.time += 2
        }
        walk.stay(100)
        let stayEnd = walk.time
        walk.walk(metres: 600)
        let visits = detect(walk.fixes)
        #expect(visits.count == 2)
        let departed = seconds(visits.last?.departure) ?? .nan
        #expect(departed >= stayEnd - 2 && departed <= stayEnd + 40)
    }

    @Test("the replay clock does not matter: visits follow the fixes' timestamps; older fixes are ignored")
    func timestampsRule() {
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 300)
        walk.stay(600)
        walk.walk(metres: 600)
        var shuffled = walk.fixes
        // A stale fix replayed late (timestamp from the start, far away) must be ignored.
        shuffled.insert(walk.fixes[0], at: shuffled.count / 2)
        #expect(detect(shuffled) == detect(walk.fixes))
        #expect(detect(walk.fixes).count == 2)
    }

    @Test("seeded GNSS noise: the reported accuracy covers the centre error, property over 40 seeds")
    func honestAccuracy() {
        var covered = 0
        var found = 0
        for seed in UInt64(1)...40 {
            var walk = Walk(latitude: -33.87, longitude: 151.21, noiseSeed: seed)
            walk.accuracy = 12
            walk.walk(metres: 400)
            let (lat, lon) = (walk.latitude, walk.longitude)
            walk.stay(Double(600 + 60 * Int(seed % 10)))
            walk.walk(metres: 500, azimuth: 200)
            let visits = detect(walk.fixes)
            guard let completed = visits.last, completed.departure != nil else { continue }
            found += 1
            let error = Geodesic.wgs84.inverse(
                latitude1: completed.latitude, longitude1: completed.longitude, latitude2: lat, longitude2: lon
            ).distance
            if error <= completed.horizontalAccuracy { covered += 1 }
        }
        #expect(found == 40)
        // A radius of uncertainty is a 68 % statement; ours should hold far more often than that.
        #expect(covered >= 36)
    }

    @Test("bad input: NaN, out-of-range, negative accuracy, repeated and backward times never yield a bad visit")
    func badInput() {
        var generator = SeededGenerator(seed: 42)
        var detector = VisitDetector()
        var visits: [Visit] = []
        var time = 0.0
        for _ in 0..<20_000 {
            time += [0, 1, 2, 30, -5].randomElement(using: &generator) ?? 1
            let roll = Int.random(in: 0..<10, using: &generator)
            let lat = roll == 0 ? .nan : roll == 1 ? 95 : 45.76 + Double.random(in: -0.002...0.002, using: &generator)
            let lon = roll == 2 ? .infinity : roll == 3 ? -181 : 4.83 + Double.random(in: -0.002...0.002, using: &generator)
            let accuracy = roll == 4 ? -1 : roll == 5 ? .nan : Double.random(in: 3...300, using: &generator)
            visits += detector.observe(fix(lat, lon, accuracy: accuracy, at: time))
        }
        #expect(!visits.isEmpty)
        for visit in visits {
            #expect(visit.latitude.isFinite && abs(visit.latitude) <= 90)
            #expect(visit.longitude.isFinite && abs(visit.longitude) <= 180)
            #expect(visit.horizontalAccuracy.isFinite && visit.horizontalAccuracy >= 0)
            if let arrival = visit.arrival, let departure = visit.departure {
                #expect(departure.timeIntervalSince(arrival) >= 300)
            }
        }
    }

    @Test("a stay across the antimeridian has its centre on the right side")
    func antimeridian() {
        var walk = Walk(latitude: -16.5, longitude: 179.9995, noiseSeed: 7)
        walk.stay(700)
        walk.walk(metres: 500, azimuth: 0)
        let visits = detect(walk.fixes)
        #expect(visits.count == 2)
        let centre = visits.last.map { abs($0.longitude) } ?? 0
        #expect(centre > 179.99)
    }
}

@Suite("Visits service in the engine")
struct VisitsServiceTests {
    @Test("settled in a visit the receiver only looks once a minute; the departure still comes")
    func probesWhileSettled() {
        var d = driver()
        d.send(.client(app, .startVisits))
        #expect(d.poweredSources == [gnss.id])
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.step = 1
        walk.walk(metres: 300)
        walk.stay(3600)
        let leaveAt = walk.time
        walk.walk(metres: 800)
        let outcome = d.replay(walk.fixes.map { (seconds($0.timestamp) ?? 0, $0) }, through: gnss.id, warmUp: 1)
        let visits = d.actions.compactMap { if case .visit(app, let visit) = $0.action { visit } else { nil } }
        #expect(visits.count == 2)
        let departed = seconds(visits.last?.departure) ?? .nan
        #expect(departed >= leaveAt - 60 && departed <= leaveAt + 40)
        // On while walking (215 s in, 572 s out, less up to a probe interval before the exit is seen)
        // and until the visit is confirmed (250–300 s into the stay: with visits on, only a settled
        // visit makes monitoring quiet); then 1 s per 60 s look (1 s warm-up). Always on: 4 387 s.
        let walking = 215.0 + 572
        #expect(outcome.onTime >= walking - 60 + 250 && outcome.onTime <= walking + 300 + 3600 / 60 * 2)
    }

    @Test("a denied app cannot start visits; stopping the last visits client powers down")
    func deniedAndStop() {
        var denied = driver(authorization: ClientAuthorization(level: .denied))
        denied.send(.client(app, .startVisits))
        #expect(denied.failures(of: app) == [.denied])
        #expect(denied.poweredSources.isEmpty)
        var d = driver()
        d.send(.client(app, .startVisits))
        #expect(d.poweredSources == [gnss.id])
        d.send(.client(app, .stopVisits))
        #expect(d.poweredSources.isEmpty)
    }

    @Test("a reduced-accuracy app hears the visit's grid cell, with at least the cell's radius as accuracy")
    func reducedAccuracy() {
        var d = driver(authorization: reducedWhenInUse)
        d.send(.client(app, .startVisits))
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 300)
        walk.stay(600)
        walk.walk(metres: 600)
        d.replay(walk.fixes.map { (seconds($0.timestamp) ?? 0, $0) }, through: gnss.id)
        let visits = d.actions.compactMap { if case .visit(app, let visit) = $0.action { visit } else { nil } }
        #expect(visits.count == 2)
        let grid = ReducedAccuracyGrid()
        for visit in visits {
            let cell = grid.cell(latitude: visit.latitude, longitude: visit.longitude)
            #expect(cell?.centerLatitude == visit.latitude && cell?.centerLongitude == visit.longitude)
            #expect(visit.horizontalAccuracy >= (cell.map(grid.coveringRadius(of:)) ?? .infinity))
        }
    }
}
