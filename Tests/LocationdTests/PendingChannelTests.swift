import CoreLocationDaemonProtocol
import Foundation
import Testing

/// The pending channels on the wire (decisions 0039, 0049): the two fixed channels keep the form
/// older clients send, and each `CLMonitor` gets its own channel whose one kind is its own name.
struct PendingChannelTests {
    @Test func olderClientsHandingsStillDecode() throws {
        // Version 2's envelope (decision 0068); the channel is the same word older clients sent.
        let json = #"{"type":"request","id":7,"body":{"type":"handingPending","sequence":3,"channel":"location"}}"#
        let message = try JSONDecoder().decode(ClientMessage.self, from: Data(json.utf8))
        #expect(message == .request(id: 7, body: .handingPending(sequence: 3, channel: .location)))
    }

    @Test func aMonitorsChannelIsItsName() throws {
        let request = DaemonRequest.acknowledgePending(sequence: 9, channel: .monitor("places"))
        let json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        #expect(json.contains(#""channel":"monitor:places""#), "\(json)")
        #expect(try JSONDecoder().decode(DaemonRequest.self, from: Data(json.utf8)) == request)
    }

    @Test func eachKindHasOneChannel() {
        #expect(PendingChannel(kind: PendingKind.enter) == .delegate)
        #expect(PendingChannel(kind: PendingKind.visit) == .delegate)
        #expect(PendingChannel(kind: PendingKind.significantChange) == .location)
        #expect(PendingChannel(kind: PendingKind.monitor("places")) == .monitor("places"))
        #expect(PendingChannel.monitor("places").kinds == ["monitor:places"])
        #expect(PendingChannel.monitor("places") != .monitor("work"))
        // A monitor's handing never forgets a region's or another monitor's events.
        #expect(!PendingChannel.delegate.kinds.contains(PendingKind.monitor("places")))
    }
}
