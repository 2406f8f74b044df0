import Testing

@testable import CoreLocationEngine

/// `MinMultiset` (decision 0093) against a plain array on seeded random inserts and removals, with duplicates, ties
/// at the top and enough removals of non-minimal members to rebuild the heap many times.
struct MinMultisetTests {
    @Test(arguments: [UInt64(3), 93, 4_096])
    func itIsTheArraysMinimumAfterEveryOperation(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var set = MinMultiset()
        var reference: [Double] = []
        for step in 0..<20_000 {
            // Few distinct values, so copies of one value are common; half inserts, half removals, at most 300 members.
            if reference.isEmpty || (reference.count < 300 && Bool.random(using: &random)) {
                let value = Double(Int.random(in: 0..<50, using: &random)) / 2
                set.insert(value)
                reference.append(value)
            } else {
                let index = Int.random(in: 0..<reference.count, using: &random)
                set.remove(reference[index])
                reference.remove(at: index)
            }
            #expect(set.min == reference.min(), "seed \(seed), step \(step)")
            #expect(set.count == reference.count, "seed \(seed), step \(step)")
            if set.min != reference.min() || set.count != reference.count { return }
        }
    }

    @Test func nanIsNeitherHeldNorCounted() {
        var set = MinMultiset()
        set.insert(.nan)
        set.insert(2)
        set.remove(.nan)
        #expect(set.min == 2)
        #expect(set.count == 1)
    }
}
