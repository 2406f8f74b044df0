// Placeholder: the threading probe is written by the tests helper.
import CoreLocation
