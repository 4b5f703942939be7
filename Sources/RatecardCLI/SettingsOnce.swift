import RatecardKit
import Synchronization

/// ratecard.yaml for one command: found and read the first time a part of the command asks,
/// the same value (or the same error) every time after.
final class SettingsOnce: Sendable {
    private enum Found {
        case settings(ServiceSettings)
        /// No content folder with ratecard.yaml: why (for `--env`, which needs one).
        case none(any Error)
        /// ratecard.yaml is there and does not read.
        case broken(any Error)
    }

    private let found = Mutex<Found?>(nil)

    /// The settings, nil when there is no content folder; throws when ratecard.yaml does not read.
    func settings(from directory: String) throws -> ServiceSettings? {
        switch load(directory) {
        case .settings(let settings): return settings
        case .none: return nil
        case .broken(let error): throw error
        }
    }

    /// The settings; throws when there is no content folder, or ratecard.yaml does not read.
    func required(from directory: String) throws -> ServiceSettings {
        switch load(directory) {
        case .settings(let settings): return settings
        case .none(let why), .broken(let why): throw why
        }
    }

    private func load(_ directory: String) -> Found {
        found.withLock { found in
            if let found { return found }
            let made: Found
            do {
                let location = try ContentLocation.find(from: directory)
                if let contentDir = location.contentDir {
                    do {
                        made = .settings(try ServiceSettings.read(contentDir: contentDir))
                    } catch {
                        made = .broken(error)
                    }
                } else {
                    made = .none(
                        OperationalError("--env needs a content folder with ratecard.yaml; pass --root DIR instead", ko: "--env에는 ratecard.yaml이 있는 콘텐츠 폴더가 필요합니다; 대신 --root DIR을 주세요"))
                }
            } catch {
                made = .none(error)
            }
            found = made
            return made
        }
    }
}
