import Foundation
import Testing
@testable import CoreLocationGeocoding

/// The batch entry point (`Gazetteer.reverse(_:)`) looks points up in Z-order and answers in input order: element i
/// must be exactly the single answer for point i. Every answer carries its query's coordinate, so an answer put at
/// the wrong index — a wrong order mapping — differs from the single answer there, even where both are at sea.
@Suite struct BatchReverseTests {
    /// Seeded points: uniform on the sphere (most at sea or in empty land), scattered within ~5 km of real places
    /// (localities, districts, coastal answers), and the corners: poles, ±180°, cells' edges.
    static func points(count: Int, seed: UInt64, gazetteer: Gazetteer) -> [(latitude: Double, longitude: Double)] {
        var generator = SplitMix64(seed: seed)
        var points: [(latitude: Double, longitude: Double)] = [
            (52.5, 13.4), (52.5, 13.4), (90, 0), (-90, 0), (0, 180), (0, -180), (-16.78, 179.99), (-16.78, -179.99),
            (43.9, 12.45), (41.9029, 12.4534), (-29.5, 28.2), (89.9, 45), (-89.9, -45), (0.05, 0.05), (0, 0),
        ]
        while points.count < count {
            if points.count % 2 == 0 {
                let z = Double(generator.next() % 2_000_001) / 1_000_000 - 1
                let longitude = Double(generator.next() % 360_000_001) / 1_000_000 - 180
                points.append((asin(z) * 180 / .pi, longitude))
            } else {
                let place = Int(generator.next() % UInt64(gazetteer.placeCount))
                let latitude = Double(gazetteer.places.latitude[place]) / 1e6
                    + Double(Int(generator.next() % 90_001) - 45_000) / 1e6
                var longitude = Double(gazetteer.places.longitude[place]) / 1e6
                    + Double(Int(generator.next() % 90_001) - 45_000) / 1e6
                if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
                points.append((max(-90, min(90, latitude)), longitude))
            }
        }
        return points
    }

    static func expectSameAsSingle(
        _ points: [(latitude: Double, longitude: Double)], language: String?, gazetteer: Gazetteer
    ) throws {
        let batch = try gazetteer.reverse(points, language: language)
        #expect(batch.count == points.count)
        var mismatches = 0
        var answered = 0
        for (index, point) in points.enumerated() {
            let single = try gazetteer.reverse(latitude: point.latitude, longitude: point.longitude, language: language)
            answered += single == nil ? 0 : 1
            if index < batch.count, batch[index] != single {
                mismatches += 1
                if mismatches <= 5 {
                    let got = String(describing: batch[index]), expected = String(describing: single)
                    Issue.record("point \(index) \(point): \(got) ≠ \(expected)")
                }
            }
        }
        #expect(mismatches == 0)
        #expect(answered > points.count / 3)  // the check covers answers, not only nils
    }

    /// 6 000 points: the radix-sorted path (batches of 256 and more).
    @Test func batchAnswersEqualSingleAnswers() throws {
        let gazetteer = try Gazetteer.bundled()
        try Self.expectSameAsSingle(Self.points(count: 6_000, seed: 0xBA7C4, gazetteer: gazetteer), language: nil,
                                    gazetteer: gazetteer)
    }

    /// Small batches (the comparison sort), and a language: localized country and place names come through.
    @Test(arguments: [1, 2, 17, 255, 256, 700])
    func smallBatchesAndALanguage(count: Int) throws {
        let gazetteer = try Gazetteer.bundled()
        let points = Self.points(count: max(count, 16), seed: UInt64(count), gazetteer: gazetteer).prefix(count)
        try Self.expectSameAsSingle(Array(points), language: nil, gazetteer: gazetteer)
        try Self.expectSameAsSingle(Array(points), language: "ru", gazetteer: gazetteer)
    }

    @Test func visitingOrderIsAPermutationInZOrder() throws {
        let gazetteer = try Gazetteer.bundled()
        for count in [0, 1, 255, 256, 5_000] {
            let points = Array(Self.points(count: max(count, 16), seed: 7, gazetteer: gazetteer).prefix(count))
            let order = Gazetteer.visitingOrder(points)
            #expect(order.sorted() == Array(points.indices))
            func key(_ index: Int) -> UInt64 {
                let row = UInt64(min(1_799, max(0, Int((points[index].latitude + 90) * 10))))
                let column = UInt64(min(3_599, max(0, Int((points[index].longitude + 180) * 10))))
                return Gazetteer.interleave(row, column)
            }
            for (a, b) in zip(order, order.dropFirst()) {
                #expect(key(a) < key(b) || (key(a) == key(b) && a < b))
            }
        }
        // Z-order: the four cells of a 2 × 2 block follow each other (row-major bits interleaved, column lowest).
        #expect(Gazetteer.interleave(0, 0) == 0 && Gazetteer.interleave(0, 1) == 1)
        #expect(Gazetteer.interleave(1, 0) == 2 && Gazetteer.interleave(1, 1) == 3)
        #expect(Gazetteer.interleave(0, 2) == 4 && Gazetteer.interleave(1_799, 3_599) < 1 << 24)
    }

    /// A seed (any slot of the country's tree: near, far, the nearest itself) changes only where the search starts:
    /// the answer is the unseeded one, place and distance.
    @Test func aSeededTreeSearchFindsTheSameNearestPlace() throws {
        let gazetteer = try Gazetteer.bundled()
        var generator = SplitMix64(seed: 0x5EED)
        var compared = 0
        for _ in 0..<2_000 {
            let place = Int(generator.next() % UInt64(gazetteer.placeCount))
            let code = gazetteer.places.country[place]
            guard let block = gazetteer.placeTree.blocks[code] else { continue }
            let lat = gazetteer.places.latitude[place] + Int32(generator.next() % 4_000_001) - 2_000_000
            let lon = gazetteer.places.longitude[place] + Int32(generator.next() % 4_000_001) - 2_000_000
            let latitude = max(-90_000_000, min(90_000_000, lat)), longitude = max(-180_000_000, min(180_000_000, lon))
            let cosLat = cos(Double(latitude) / 1e6 * .pi / 180)
            let plain = gazetteer.placeTree.nearest(country: code, latitude: latitude, longitude: longitude,
                                                    cosLat: cosLat)
            let seed = block.lowerBound + Int(generator.next() % UInt64(block.count))
            for seed in [seed, plain?.slot ?? seed] {
                let seeded = gazetteer.placeTree.nearest(
                    country: code, block: block, seed: seed, latitude: latitude, longitude: longitude, cosLat: cosLat)
                #expect(seeded?.index == plain?.index && seeded?.distance == plain?.distance && seeded != nil)
            }
            compared += 1
        }
        #expect(compared > 1_000)
    }

    @Test func anInvalidCoordinateRefusesTheBatch() throws {
        let gazetteer = try Gazetteer.bundled()
        #expect(throws: GeocodingError.self) { try gazetteer.reverse([(52.5, 13.4), (91, 0)]) }
        #expect(throws: GeocodingError.self) { try gazetteer.reverse([(.nan, 0)]) }
        #expect(try gazetteer.reverse([]).isEmpty)
    }
}
