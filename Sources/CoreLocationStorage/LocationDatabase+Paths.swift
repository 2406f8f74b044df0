import Foundation

extension LocationDatabase {
    /// Where the user's database lives, per the XDG Base Directory specification:
    ///
    /// 1. `$CORELOCATION_DATABASE`, when set and not empty (tests and special setups);
    /// 2. `$XDG_DATA_HOME/corelocation/corelocation.sqlite`, when `XDG_DATA_HOME` is an absolute
    ///    path (the specification says to ignore a relative one);
    /// 3. `$HOME/.local/share/corelocation/corelocation.sqlite`, with the account's home
    ///    directory when `HOME` is unset or empty.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["CORELOCATION_DATABASE"], !explicit.isEmpty {
            return explicit
        }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.homeDirectoryForCurrentUser.path
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return ((dataHome as NSString).appendingPathComponent("corelocation") as NSString)
            .appendingPathComponent("corelocation.sqlite")
    }
}
