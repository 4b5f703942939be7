import RatecardKit

/// `ratecard schema`: one JSON Schema per kind of content file, for editors, from the field
/// tables the loader checks files with.
enum SchemaCommand {
    static let command = Command(
        name: "schema",
        abstract: "Write a JSON Schema (draft 2020-12) for each kind of content file, for editors.",
        usage: "[--out <dir>] [--check]",
        options: [
            OptionSpec("--out", value: "DIR", "The folder to write <kind>.schema.json into (default .ratecard-schemas, where ratecard init maps them)"),
            OptionSpec("--check", "Write nothing; exit 1 when a schema in DIR is missing or out of date"),
        ],
        run: run)

    /// Where `ratecard init` writes the schemas: a dot folder, which validate never reads as content.
    static let folder = ".ratecard-schemas"

    /// Writes the schemas into `root`/.ratecard-schemas and maps them in `root`/.vscode/settings.json
    /// (`yaml.schemas`, read by the YAML language server). Terms front matter is inside Markdown,
    /// which that server does not read, so it is not mapped.
    static func writeEditorSetup(in root: String) throws {
        try FileSystem.makeDirectories(root + "/" + folder)
        for file in files() { try FileSystem.writeFile("\(root)/\(folder)/\(file.name)", file.bytes) }
        var mapping: [String: JSON] = [:]
        for kind in FieldTables.kinds where kind.files.allSatisfy({ $0.hasSuffix(".yaml") }) {
            mapping["./\(folder)/\(kind.name).schema.json"] = .array(kind.files.map { .string($0) })
        }
        try FileSystem.makeDirectories(root + "/.vscode")
        try FileSystem.writeFile(root + "/.vscode/settings.json", JSON.object(["yaml.schemas": .object(mapping)]).bytes(terminator: "\n"))
    }

    /// Each schema's file name and bytes, sorted keys, ending in a newline.
    static func files() -> [(name: String, bytes: [UInt8])] {
        FieldTables.kinds.map { ("\($0.name).schema.json", FieldTables.schema($0).bytes(terminator: "\n")) }
    }

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let given = arguments.value("--out") ?? folder
        let out = RatecardCLI.resolve(given, against: invocation.directory)
        if arguments.has("--check") {
            var stale: [String] = []
            for file in files() {
                let path = "\(out)/\(file.name)"
                if !FileSystem.exists(path) || (try? FileSystem.readFile(path)) != file.bytes { stale.append(path) }
            }
            for path in stale {
                invocation.console.err(
                    invocation.messages(
                        Message("\(path): missing or out of date; run 'ratecard schema --out \(given)'\n", ko: "\(path): 없거나 최신이 아닙니다; 'ratecard schema --out \(given)'을 실행하세요\n")))
            }
            return stale.isEmpty ? RatecardCLI.ExitCode.ok : RatecardCLI.ExitCode.invalid
        }
        try FileSystem.makeDirectories(out)
        for file in files() { try DurableFiles.replace("\(out)/\(file.name)", file.bytes) }
        invocation.console.out(invocation.messages(Message("\(files().count) schemas written to \(out)\n", ko: "스키마 \(files().count)개를 \(out)에 썼습니다\n")))
        return RatecardCLI.ExitCode.ok
    }
}
