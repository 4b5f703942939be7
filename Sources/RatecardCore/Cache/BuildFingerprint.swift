internal import CCmark
internal import CGit2
internal import CShims
internal import CYAML
import RatecardSupport

/// What decides a bundle's bytes and a check's findings besides the content: this program
/// (its GNU build id, the linker's hash of the executable) and the libraries that parse and
/// render (cmark-gfm, libyaml, libgit2). Written into every manifest as `build`; a publish builds
/// onto the live bundle only when the live bundle has the same one, so a rendering or a rule
/// changed in a new ratecard, or a new cmark-gfm, never leaves files of the old one in place.
public enum BuildFingerprint {
    /// This program and its version, as a manifest's `generator` names it (`BundleBuilder.generator`).
    public static let generator = "ratecard 0.1.0"

    public static let value: String = {
        var id = [UInt8](repeating: 0, count: 64)
        let length = Int(cshims_build_id(&id, Int32(id.count)))
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        let parts = [
            generator,
            length > 0 ? id[0..<length].map { String($0, radix: 16) }.joined() : "no build id",
            "cmark " + String(cString: cmark_version_string()),
            "libyaml " + String(cString: yaml_get_version_string()),
            "libgit2 \(major).\(minor).\(revision)",
        ]
        return String(SHA256.hex(parts.joined(separator: "\n")).prefix(16))
    }()
}
