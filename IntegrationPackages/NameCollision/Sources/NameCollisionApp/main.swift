import CoreLocation
import Geocoding
import Geodesy
import LocationEngine
import LocationSources
import LocationStorage

// Uses both the client's own modules and Core Location, so both must link into one executable.
let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
let london = CLLocation(latitude: 51.5074, longitude: -0.1278)
let kilometres = (paris.distance(from: london) / 1000).rounded()
let modules = [GeodesyMarker.name, GeocodingMarker.name, LocationEngineMarker.name,
               LocationSourcesMarker.name, LocationStorageMarker.name]
print("\(modules.joined(separator: ",")) \(Int(kilometres)) km")
