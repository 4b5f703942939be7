import RatecardOutput
import RatecardSupport

extension BridgeRequirement {
    /// Reads the requirement a release recorded in its version.json, if any.
    public static func recorded(in folder: String) throws -> BridgeRequirement? {
        try recorded(manifest: try FileSystem.readFile(folder + "/" + ReleaseInfo.fileName))
    }
}
