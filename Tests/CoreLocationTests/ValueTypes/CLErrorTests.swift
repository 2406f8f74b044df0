import CoreLocation
import Foundation
import Testing

@Suite("CLError and CLLocationPushServiceError")
struct CLErrorTests {
    @Test func codeRawValuesAreApples() {
        let codes: [CLError.Code] = [
            .locationUnknown, .denied, .network, .headingFailure, .regionMonitoringDenied,
            .regionMonitoringFailure, .regionMonitoringSetupDelayed, .regionMonitoringResponseDelayed,
            .geocodeFoundNoResult, .geocodeFoundPartialResult, .geocodeCanceled, .deferredFailed,
            .deferredNotUpdatingLocation, .deferredAccuracyTooLow, .deferredDistanceFiltered, .deferredCanceled,
            .rangingUnavailable, .rangingFailure, .promptDeclined, .historicalLocationError,
        ]
        #expect(codes.map(\.rawValue) == Array(0...19))
        #expect(CLError.Code(rawValue: 20) == nil)
    }

    @Test func staticShortcutsAreCodes() {
        let shortcuts: [CLError.Code] = [
            CLError.locationUnknown, CLError.denied, CLError.network, CLError.headingFailure,
            CLError.regionMonitoringDenied, CLError.regionMonitoringFailure, CLError.regionMonitoringSetupDelayed,
            CLError.regionMonitoringResponseDelayed, CLError.geocodeFoundNoResult, CLError.geocodeFoundPartialResult,
            CLError.geocodeCanceled, CLError.deferredFailed, CLError.deferredNotUpdatingLocation,
            CLError.deferredAccuracyTooLow, CLError.deferredDistanceFiltered, CLError.deferredCanceled,
            CLError.rangingUnavailable, CLError.rangingFailure, CLError.promptDeclined, CLError.historicalLocationError,
        ]
        #expect(shortcuts.map(\.rawValue) == Array(0...19))
    }

    @Test func bridgesToNSError() {
        let error: any Error = CLError(.denied)
        let nsError = error as NSError
        #expect(nsError.domain == "kCLErrorDomain")
        #expect(nsError.code == 1)
        #expect(CLError.errorDomain == kCLErrorDomain)
        #expect(CLError(.network).errorCode == 2)
        #expect(error.localizedDescription.contains("denied"))
    }

    @Test func givenDescriptionWins() {
        let error = CLError(.network, userInfo: [NSLocalizedDescriptionKey: "proxy down"])
        #expect((error as NSError).localizedDescription == "proxy down")
        #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == "proxy down")
        #expect(CLError(.network).userInfo.isEmpty)
    }

    @Test func catchByCode() {
        func fail() throws { throw CLError(.denied) }
        var matched = ""
        do { try fail() } catch CLError.locationUnknown {
            matched = "unknown"
        } catch CLError.denied {
            matched = "denied"
        } catch {
            matched = "other"
        }
        #expect(matched == "denied")

        do { try fail() } catch let error as CLError where error.code == .denied {
            matched = "typed"
        } catch {
            matched = "other"
        }
        #expect(matched == "typed")
    }

    @Test func codeMatchesNSErrorInTheDomainOnly() {
        #expect(CLError.Code.network ~= NSError(domain: kCLErrorDomain, code: 2))
        #expect(!(CLError.Code.network ~= NSError(domain: "other", code: 2)))
        #expect(!(CLError.Code.network ~= CLError(.denied)))
        #expect(!(CLError.Code.denied ~= CLLocationPushServiceError(.missingPushExtension)))
    }

    @Test func equalityAndHashing() {
        #expect(CLError(.denied) == CLError(.denied))
        #expect(CLError(.denied) != CLError(.network))
        #expect(CLError(.denied) != CLError(.denied, userInfo: ["k": "v"]))
        #expect(Set([CLError(.denied), CLError(.denied), CLError(.network)]).count == 2)
    }

    @Test func alternateRegion() {
        let region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 1, longitude: 2), radius: 50, identifier: "alt"
        )
        let error = CLError(.regionMonitoringFailure, userInfo: [kCLErrorUserInfoAlternateRegionKey: region])
        #expect(error.alternateRegion?.identifier == "alt")
        #expect(CLError(.regionMonitoringFailure).alternateRegion == nil)
    }

    @Test func pushServiceError() {
        let codes: [CLLocationPushServiceError.Code] = [
            .unknown, .missingPushExtension, .missingPushServerEnvironment, .missingEntitlement, .unsupportedPlatform,
        ]
        #expect(codes.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect([CLLocationPushServiceError.unknown, CLLocationPushServiceError.missingPushExtension,
                 CLLocationPushServiceError.missingPushServerEnvironment, CLLocationPushServiceError.missingEntitlement,
                 CLLocationPushServiceError.unsupportedPlatform] == codes)
        let error: any Error = CLLocationPushServiceError(.unsupportedPlatform)
        let nsError = error as NSError
        #expect(nsError.domain == CLLocationPushServiceErrorDomain && nsError.code == 4)
        #expect(error.localizedDescription.contains("not supported"))
        var caught = false
        do { throw error } catch CLLocationPushServiceError.unsupportedPlatform { caught = true } catch {}
        #expect(caught)
    }
}
