import Testing

@testable import RatecardCore
@testable import RatecardKit

/// What a content file is, from its path: every role, paths that nearly name one, and paths
/// whose difference hides behind Unicode (a combining mark makes a new last Character).
@Suite struct FileRoleTests {
    @Test func anUnexpectedFileSaysWhatContentFilesAre() {
        guard case .unexpected(let text) = Self.unexpected, case .unexpected(let yml) = Self.yml else {
            Issue.record("not unexpected: \(Self.unexpected) \(Self.yml)")
            return
        }
        #expect(
            text.english
                == "unexpected file: content files are ratecard.yaml, regulatory/{limits,phrases,signoffs}.yaml, partners/<id>.yaml, products/<partner>/<product>/product.yaml, products/<partner>/<product>/rates/<YYYY-MM-DD>.yaml, terms/<doc>/<version>.md and assets/*.svg|png"
        )
        #expect(yml.english == "unexpected file: YAML files end in .yaml, not .yml; rename it")
        #expect(yml.korean.hasPrefix("예상하지 못한 파일입니다: YAML 파일 이름은 .yml이 아니라 .yaml로 끝나야 합니다"))
    }

    static let unexpected = FileRole("a/b/c")
    static let yml = FileRole("a.yml")

    static let roles: [(String, FileRole)] = [
        ("ratecard.yaml", .config), ("/ratecard.yaml", .config), ("ratecard.yaml/", .config),
        ("ratecard.yml", yml), ("a/ratecard.yaml", unexpected), ("", unexpected), ("/", unexpected), ("//", unexpected),
        ("regulatory/limits.yaml", .limits), ("regulatory/phrases.yaml", .phrases), ("regulatory/signoffs.yaml", .signoffs),
        ("regulatory//limits.yaml", .limits), ("regulatory/other.yaml", unexpected),
        ("partners/bareun-bank-1.yaml", .partner("bareun-bank-1")), ("partners/.yaml", .partner("")), ("partners/a.yml", yml),
        ("partners/x/y.yaml", unexpected), ("partners/a.yaml/", .partner("a")),
        ("products/p/q/product.yaml", .product(partner: "p", product: "q")), ("products/p/q/product.yml", yml),
        ("products/p/product.yaml", unexpected), ("products//p/q/product.yaml", .product(partner: "p", product: "q")),
        ("products/p/q/rates/2025-01-01.yaml", .rateTable(partner: "p", product: "q", date: "2025-01-01")),
        ("products/p/q/rates/.yaml", .rateTable(partner: "p", product: "q", date: "")),
        ("products/p/q/rate/2025-01-01.yaml", unexpected), ("products/p/q/rates/2025-01-01.yaml/x", unexpected),
        ("terms/doc/1.0.0.md", .terms(document: "doc", version: "1.0.0")), ("terms/doc/.md", .terms(document: "doc", version: "")),
        ("terms/doc/1.0.0.MD", unexpected), ("terms/1.0.0.md", unexpected),
        ("assets/logo.svg", .asset), ("assets/a/b/logo.png", .asset), ("assets/logo.gif", unexpected),
        ("assets", unexpected), ("assets/", unexpected), ("assets/logo.svg/", unexpected),
        ("Products/p/q/product.yaml", unexpected), ("partners/바른은행.yaml", .partner("바른은행")),
        ("terms/약관/1.0.0.md", .terms(document: "약관", version: "1.0.0")),
        ("products/p/q/rates/2025-01-01.yaml\u{301}", unexpected), ("partners/a\u{301}.yaml", .partner("a\u{301}")),
        ("assets/\u{0600}.svg", unexpected), ("te\u{301}rms/doc/1.0.0.md", unexpected), ("x\r\n/ratecard.yaml", unexpected),
    ]

    @Test func everyPathHasItsRole() {
        for (path, role) in Self.roles {
            #expect(FileRole(path) == role, "\(path.unicodeScalars.map(\.value))")
        }
    }
}
