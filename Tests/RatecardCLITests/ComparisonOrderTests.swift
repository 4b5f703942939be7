import Foundation
import RatecardKit
import Testing

/// The comparison's order is the borrower's (`sortRows` in site/app/conditions.js, run by node
/// as the app runs it): rows the chosen order ranks equal are ordered by product key, so
/// reordering partners or products in the content, or adding any field to them, never moves a
/// row. (`BrowserComparisonTests` sees the rule stated beside the sort, `SORT_TIE_KO`.)
@Suite struct ComparisonOrderTests {
    /// The app's order of `inputs` (each a list of rows as the screen builds them) for each of
    /// `sorts`, as keys, from one node process.
    func appOrders(_ inputs: [[[String: Any]]], sorts: [String]) throws -> [[[String]]] {
        try withTemporaryDirectory { directory in
            for module in ["conditions.js", "format.js", "loan-math.js"] {
                try FileSystem.writeFile(directory + "/" + module, try FileSystem.readFile(projectSite + "/app/" + module))
            }
            try FileSystem.writeFile(directory + "/package.json", Array(#"{"type": "module"}"#.utf8))
            try FileSystem.writeFile(directory + "/rows.json", Array(try JSONSerialization.data(withJSONObject: inputs)))
            try FileSystem.writeFile(
                directory + "/run.js",
                Array(
                    """
                    import { readFileSync } from "node:fs";
                    import { SORT_TIE_KO, sortRows } from "./conditions.js";
                    const inputs = JSON.parse(readFileSync(process.argv[2], "utf8"));
                    const sorts = process.argv.slice(3);
                    for (const sort of sorts) if (!SORT_TIE_KO[sort]) throw new Error("no tie rule for " + sort);
                    console.log(JSON.stringify(sorts.map((sort) => inputs.map((rows) => sortRows(rows.slice(), sort).map((row) => row.key)))));

                    """.utf8))
            let (status, output) = try runTool("/usr/bin/env", ["node", directory + "/run.js", directory + "/rows.json"] + sorts)
            #expect(status == 0, "\(output)")
            return try JSONDecoder().decode([[[String]]].self, from: Data(output.utf8))
        }
    }

    @Test func equalProductsKeepTheirOrderWhateverTheContentsOrderOrFields() throws {
        // Four products equal on every criterion (rate, limit, payment), one cheaper, one dearer.
        func row(_ key: String, apr: Double = 6.5, limit: Int = 30_000_000) -> [String: Any] {
            ["key": key, "aprMin": apr, "aprMax": apr + 4, "limit": limit, "low": ["firstPayment": 100_000 + Int(apr * 100)], "high": ["firstPayment": 120_000]]
        }
        let content = [row("kbank/credit"), row("acme-bank/credit"), row("zeta-savings/worker", apr: 7.5), row("hana-bank/one-q"), row("ibk/refinance"), row("coral-card/loan", apr: 5.5)]
        let equal = ["acme-bank/credit", "hana-bank/one-q", "ibk/refinance", "kbank/credit"]
        // The content reversed (partners and products in another order), and with fields that a
        // commission or a display order could be written in.
        let reversed = Array(content.reversed())
        let weighted = content.enumerated().map { index, row in
            row.merging(["display_order": 100 - index, "commission_pct": Double(index), "name_ko": "가\(index)", "partner_order": index]) { $1 }
        }
        let shuffled = [weighted[3], weighted[0], weighted[5], weighted[1], weighted[4], weighted[2]]
        let sorts = ["apr", "limit", "payment"]
        let all = try appOrders([content, reversed, weighted, shuffled], sorts: sorts)
        #expect(all.count == sorts.count)
        for (sort, orders) in zip(sorts, all) {
            #expect(orders.count == 4)
            #expect(Set(orders).count == 1, "\(sort): \(orders)")
            let equalOrder = orders.first?.filter { equal.contains($0) }
            #expect(equalOrder == equal, "\(sort): \(orders.first ?? [])")
        }
        #expect(all.first?.first?.first == "coral-card/loan")
    }
}
