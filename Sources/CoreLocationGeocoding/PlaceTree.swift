/// One k-d tree per country over its places: the nearest place of a country, by the equirectangular distance at
/// the query's latitude (`Gazetteer.distance`), for points with no locality in reach (its time zone and, near
/// enough, its administrative areas).
///
/// The tree order comes from `gazetteer.bin`'s TREE section (`scripts/gazetteer-land.py`): each country's
/// places are one slot range, and the node of range [lo, hi) is slot (lo + hi) / 2 with children [lo, mid) and
/// [mid + 1, hi). Each node keeps its subtree's bounding box (computed at load), and the search prunes by the
/// box's distance, which never exceeds the distance of a place inside it (longitude wraps at ±180°), so the
/// answer is the exact nearest place; ties go to the lower place index, as in the place grid's cell order.
struct PlaceTree: Sendable {
    struct Node: Sendable {
        var latitude: Int32
        var longitude: Int32
        var minLatitude: Int32
        var maxLatitude: Int32
        var minLongitude: Int32
        var maxLongitude: Int32
        var place: Int32
    }

    /// A subtree of at most this many slots is scanned rather than descended.
    static let leafSize = 8

    let nodes: [Node]
    /// Each country's slot range, by the string index of its code (places of one country are contiguous).
    let blocks: [Int32: Range<Int>]

    /// - Parameters: the TREE section and the places' coordinates (microdegrees) and country codes.
    init(_ reader: ByteReader, latitude: [Int32], longitude: [Int32], country: [Int32]) throws(GeocodingError) {
        var reader = reader
        var blocks: [Int32: Range<Int>] = [:]
        var start = 0
        for index in 1...country.count where index == country.count || country[index] != country[start] {
            guard blocks[country[start]] == nil else {
                throw GeocodingError(.resourceCorrupt, "the places of one country are not contiguous")
            }
            blocks[country[start]] = start..<index
            start = index
        }
        var nodes: [Node] = []
        nodes.reserveCapacity(country.count)
        var seen = [Bool](repeating: false, count: country.count)
        for slot in 0..<country.count {
            let place = try reader.index(below: country.count)
            guard !seen[place], country[place] == country[slot] else {
                throw GeocodingError(.resourceCorrupt, "the place tree is not a permutation within countries")
            }
            seen[place] = true
            let lat = latitude[place], lon = longitude[place]
            nodes.append(Node(latitude: lat, longitude: lon, minLatitude: lat, maxLatitude: lat,
                              minLongitude: lon, maxLongitude: lon, place: Int32(place)))
        }
        guard reader.isAtEnd else { throw GeocodingError(.resourceCorrupt, "the place tree has trailing bytes") }
        nodes.withUnsafeMutableBufferPointer { buffer in
            for block in blocks.values where !block.isEmpty { Self.fillBoxes(buffer, block.lowerBound, block.upperBound) }
        }
        self.nodes = nodes
        self.blocks = blocks
    }

    /// Sets the bounding box of range [lo, hi) on its node, children first; returns the node's slot.
    @discardableResult
    private static func fillBoxes(_ nodes: UnsafeMutableBufferPointer<Node>, _ lo: Int, _ hi: Int) -> Int {
        let mid = (lo + hi) / 2
        func include(_ child: Int) {
            let box = nodes[child]
            nodes[mid].minLatitude = min(nodes[mid].minLatitude, box.minLatitude)
            nodes[mid].maxLatitude = max(nodes[mid].maxLatitude, box.maxLatitude)
            nodes[mid].minLongitude = min(nodes[mid].minLongitude, box.minLongitude)
            nodes[mid].maxLongitude = max(nodes[mid].maxLongitude, box.maxLongitude)
        }
        if lo < mid { include(fillBoxes(nodes, lo, mid)) }
        if mid + 1 < hi { include(fillBoxes(nodes, mid + 1, hi)) }
        return mid
    }

    /// The nearest place of the country with code string index `country`, with its distance (m); nil when the
    /// country has no places.
    /// `block`, when given, must be `blocks[country]` (the caller looked it up once: a dictionary look-up a query).
    /// `seed`, when given, is a slot of the country's block (a batch passes the previous point's answer): the
    /// search starts with it as the best so far, so it prunes from the first node. The answer is the same (the
    /// nearest place; ties: lower index), only found sooner when the seed is near.
    func nearest(
        country: Int32, block: Range<Int>? = nil, seed: Int? = nil, latitude: Int32, longitude: Int32, cosLat: Double
    ) -> (index: Int, distance: Double, slot: Int)? {
        guard let block = block ?? blocks[country], !block.isEmpty else { return nil }
        return nodes.withUnsafeBufferPointer { buffer in
            var search = Search(nodes: buffer, latitude: latitude, longitude: longitude, cosLat: cosLat)
            if let seed, block.contains(seed) { search.consider(seed) }
            search.visit(block.lowerBound, block.upperBound)
            return search.bestPlace < 0 ? nil : (Int(search.bestPlace), search.bestDistance, search.bestSlot)
        }
    }

    private struct Search {
        let nodes: UnsafeBufferPointer<Node>
        let latitude: Int32
        let longitude: Int32
        let cosLat: Double
        var bestPlace: Int32 = -1
        var bestSlot = -1
        /// The best place's squared distance in (microdegrees)², as `Gazetteer.distance` computes it before its
        /// square root, and that distance (m).
        var bestSquared = Double.infinity
        var bestDistance = Double.infinity

        @inline(__always)
        func squared(dLatitude: Double, dLongitude: Double) -> Double {
            let dx = dLongitude * cosLat
            return dx * dx + dLatitude * dLatitude
        }

        /// A place is compared by `Gazetteer.distance`, the same arithmetic, so the tree ranks places exactly as
        /// the grid search did; its squared distance, which that distance never decreases with, skips the square
        /// root for places that cannot win.
        @inline(__always)
        mutating func consider(_ slot: Int) {
            let node = nodes[slot]
            let dy = Double(node.latitude - latitude)
            var dx = Double(node.longitude - longitude)
            if dx > 180e6 { dx -= 360e6 } else if dx < -180e6 { dx += 360e6 }
            let q = squared(dLatitude: dy, dLongitude: dx)
            guard q <= bestSquared else { return }
            let d = q.squareRoot() * Gazetteer.metresPerDegree / 1e6
            if d < bestDistance || (d == bestDistance && node.place < bestPlace) {
                bestDistance = d
                bestSquared = q
                bestPlace = node.place
                bestSlot = slot
            }
        }

        /// A lower bound of the squared distance to every place in the subtree whose node is `slot`.
        @inline(__always)
        func bound(_ slot: Int) -> Double {
            let node = nodes[slot]
            var dy: Int32 = 0
            if latitude < node.minLatitude { dy = node.minLatitude - latitude }
            if latitude > node.maxLatitude { dy = latitude - node.maxLatitude }
            var dx: Int32 = 0
            if longitude < node.minLongitude || longitude > node.maxLongitude {
                // Off the box's longitudes, the nearest longitude of the box is one of its edges (wrapped).
                dx = min(Self.wrapped(node.minLongitude - longitude), Self.wrapped(node.maxLongitude - longitude))
            }
            return squared(dLatitude: Double(dy), dLongitude: Double(dx))
        }

        @inline(__always)
        static func wrapped(_ difference: Int32) -> Int32 {
            let magnitude = abs(difference)
            return magnitude > 180_000_000 ? 360_000_000 - magnitude : magnitude
        }

        mutating func visit(_ lo: Int, _ hi: Int) {
            if hi - lo <= PlaceTree.leafSize {
                for slot in lo..<hi { consider(slot) }
                return
            }
            let mid = (lo + hi) / 2
            consider(mid)
            // Both children are non-empty here (hi - lo > 2); the nearer one first, then the other if it may hold
            // a place as near as the best so far (equal distance: a lower index could still win the tie).
            let left = bound((lo + mid) / 2), right = bound((mid + 1 + hi) / 2)
            if left <= right {
                if left <= bestSquared { visit(lo, mid) }
                if right <= bestSquared { visit(mid + 1, hi) }
            } else {
                if right <= bestSquared { visit(mid + 1, hi) }
                if left <= bestSquared { visit(lo, mid) }
            }
        }
    }
}
