import Foundation

/// Options from a `GoogleService-Info.plist`, as FirebaseCore reads them.
extension FirebaseOptions {
    /// The name of the property list `defaultOptions()` reads from the main bundle.
    static let defaultPlistName = "GoogleService-Info"

    /// The options of `GoogleService-Info.plist` in the main bundle, or nil if the bundle has none
    /// (command-line tools and tests on Linux usually have none) or it cannot be read. Each call
    /// reads the file again and returns new options.
    public static func defaultOptions() -> FirebaseOptions? {
        guard let path = Bundle.main.path(forResource: defaultPlistName, ofType: "plist") else { return nil }
        return FirebaseOptions(contentsOfFile: path)
    }

    /// The options of the `GoogleService-Info.plist` at `plistPath`: `API_KEY`, `PROJECT_ID`,
    /// `GOOGLE_APP_ID`, `GCM_SENDER_ID`, `BUNDLE_ID` and `CLIENT_ID` where present, and Flint's
    /// `FlintServerURL`, the server's base URL (see `serverURL`). Nil if the file is not a property
    /// list dictionary, or if `FlintServerURL` is there but not an `http` or `https` URL.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return nil }
        var values = Values(apiKey: plist["API_KEY"] as? String,
                            projectID: plist["PROJECT_ID"] as? String,
                            googleAppID: plist["GOOGLE_APP_ID"] as? String,
                            gcmSenderID: plist["GCM_SENDER_ID"] as? String,
                            bundleID: plist["BUNDLE_ID"] as? String,
                            clientID: plist["CLIENT_ID"] as? String)
        if let server = plist["FlintServerURL"] {
            guard let text = server as? String, let url = URL(string: text), url.host != nil,
                  let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { return nil }
            values.serverURL = url
        }
        self.init(values)
    }
}
