internal import CXML2
import RatecardSupport

/// Checks an SVG logo against an allow-list, parsed by libxml2.
///
/// A logo is served from the site's own origin, so an SVG that runs script there (a `<script>`
/// element, an `onload` attribute, a `javascript:` link, HTML inside `<foreignObject>`) or
/// fetches from elsewhere (an external `href`, `url(http…)`) is refused. Only drawing elements
/// and presentation attributes pass; a DOCTYPE is refused outright (entities are never
/// expanded, nothing is loaded from the network).
public enum SVGSafety {
    /// A problem with its 1-based position in the file.
    public struct Problem: Sendable, Equatable {
        public var mark: SourceMark
        public var message: Message
    }

    package static let svgNamespace = "http://www.w3.org/2000/svg"

    package static let elements: Set<String> = [
        "svg", "g", "defs", "title", "desc", "path", "rect", "circle", "ellipse", "line", "polyline",
        "polygon", "text", "tspan", "linearGradient", "radialGradient", "stop", "clipPath", "mask",
        "use", "symbol",
    ]

    package static let attributes: Set<String> = [
        "id", "class", "version", "width", "height", "viewBox", "preserveAspectRatio", "x", "y", "x1",
        "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "dx", "dy", "d", "points",
        "transform", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
        "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
        "stroke-dashoffset", "opacity", "color", "display", "visibility", "font-family", "font-size",
        "font-weight", "font-style", "letter-spacing", "text-anchor", "dominant-baseline",
        "textLength", "lengthAdjust", "offset", "stop-color", "stop-opacity", "gradientUnits",
        "gradientTransform", "spreadMethod", "clip-path", "clip-rule", "clipPathUnits", "mask",
        "maskUnits", "maskContentUnits", "role", "aria-label", "aria-hidden", "href",
    ]

    /// The problems of an SVG file; empty when it is safe to serve.
    public static func problems(in bytes: [UInt8], name: String) -> [Problem] {
        _ = initialized
        guard let context = xmlNewParserCtxt() else { return [Problem(mark: .start, message: Message("the XML parser could not be started", ko: "XML 파서를 시작하지 못했습니다"))] }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlCtxtReadMemory(context, chars.baseAddress, Int32(chars.count), name, "UTF-8", options)
            }
        }
        guard let document else {
            if let error = xmlCtxtGetLastError(context) {
                let message = error.pointee.message.map { String(cString: $0) }?.trimmingCharacters(in: "\n ") ?? "malformed XML"
                return [
                    Problem(
                        mark: SourceMark(line: max(1, Int(error.pointee.line)), column: max(1, Int(error.pointee.int2))),
                        message: Message("the SVG is not well-formed XML: \(message)", ko: "SVG가 올바른 XML이 아닙니다 (libxml2: \(message))"))
                ]
            }
            return [Problem(mark: .start, message: Message("the SVG is not well-formed XML", ko: "SVG가 올바른 XML이 아닙니다"))]
        }
        defer { xmlFreeDoc(document) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var found: [Problem] = []
        func report(_ node: UnsafeMutablePointer<xmlNode>?, _ needle: String, _ message: Message) {
            let line = node.map { Int(xmlGetLineNo($0)) } ?? 1
            var column = 1
            if line >= 1, line <= lines.count, let range = lines[line - 1].range(of: needle) {
                column = lines[line - 1].distance(from: lines[line - 1].startIndex, to: range.lowerBound) + 1
            }
            found.append(Problem(mark: SourceMark(line: max(line, 1), column: column), message: message))
        }
        if document.pointee.intSubset != nil || document.pointee.extSubset != nil {
            report(
                nil, "<!DOCTYPE",
                Message("a DOCTYPE is not allowed in an SVG logo (entities and external DTDs are an attack surface); remove it", ko: "SVG 로고에는 DOCTYPE을 둘 수 없습니다 (엔터티와 외부 DTD는 공격 경로가 됩니다); 지우세요"))
        }
        guard let root = xmlDocGetRootElement(document) else { return found + [Problem(mark: .start, message: Message("the SVG has no root element", ko: "SVG에 루트 요소가 없습니다"))] }
        // Beside the root element only comments (and the DOCTYPE, reported above) may stand: a
        // processing instruction before or after it (xml-stylesheet) is applied by browsers.
        var top = document.pointee.children
        while let node = top {
            switch node.pointee.type {
            case XML_ELEMENT_NODE, XML_COMMENT_NODE, XML_DTD_NODE: break
            case XML_PI_NODE: report(node, "<?", Message("processing instructions (<?...?>) are not allowed in an SVG logo", ko: "SVG 로고에는 처리 명령(<?...?>)을 둘 수 없습니다"))
            default: report(node, "<", Message("this kind of XML node is not allowed in an SVG logo", ko: "SVG 로고에는 이런 종류의 XML 노드를 둘 수 없습니다"))
            }
            top = node.pointee.next
        }
        if text(root.pointee.name) != "svg" || namespace(of: root) != svgNamespace {
            report(root, "<", Message("the root element must be <svg xmlns=\"\(svgNamespace)\">", ko: "루트 요소는 <svg xmlns=\"\(svgNamespace)\">여야 합니다"))
        }
        // Depth-first over the tree with an explicit stack (a hostile file may nest deeply).
        var stack: [UnsafeMutablePointer<xmlNode>] = [root]
        while let node = stack.popLast() {
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                let name = text(node.pointee.name)
                if namespace(of: node) != svgNamespace || !elements.contains(name) {
                    let shown = node.pointee.ns?.pointee.prefix.map { text($0) + ":" + name } ?? name
                    report(
                        node, "<" + shown,
                        Message(
                            "element <\(shown)> is not allowed in an SVG logo (only drawing elements: \(elements.sorted().joined(separator: ", ")))",
                            ko: "SVG 로고에는 <\(shown)> 요소를 둘 수 없습니다 (쓸 수 있는 그리기 요소: \(elements.sorted().joined(separator: ", ")))"))
                    continue
                }
                var attribute = node.pointee.properties
                while let current = attribute {
                    check(attribute: current, of: node, name: name, report: report)
                    attribute = current.pointee.next
                }
            case XML_TEXT_NODE, XML_COMMENT_NODE:
                break
            case XML_CDATA_SECTION_NODE:
                report(node, "<![CDATA[", Message("CDATA sections are not allowed in an SVG logo; write plain text", ko: "SVG 로고에는 CDATA 구역을 둘 수 없습니다; 일반 텍스트로 쓰세요"))
            case XML_ENTITY_REF_NODE, XML_ENTITY_NODE:
                report(node, "&", Message("entity references are not allowed in an SVG logo", ko: "SVG 로고에는 엔터티 참조를 쓸 수 없습니다"))
            case XML_PI_NODE:
                report(node, "<?", Message("processing instructions (<?...?>) are not allowed in an SVG logo", ko: "SVG 로고에는 처리 명령(<?...?>)을 둘 수 없습니다"))
            default:
                report(node, "<", Message("this kind of XML node is not allowed in an SVG logo", ko: "SVG 로고에는 이런 종류의 XML 노드를 둘 수 없습니다"))
            }
            var child = node.pointee.children
            var children: [UnsafeMutablePointer<xmlNode>] = []
            while let current = child {
                children.append(current)
                child = current.pointee.next
            }
            stack.append(contentsOf: children.reversed())
        }
        return found
    }

    private static func check(
        attribute: UnsafeMutablePointer<xmlAttr>, of node: UnsafeMutablePointer<xmlNode>, name element: String,
        report: (UnsafeMutablePointer<xmlNode>?, String, Message) -> Void
    ) {
        let local = text(attribute.pointee.name)
        let prefix = attribute.pointee.ns.flatMap { $0.pointee.prefix.map { text($0) } }
        let shown = prefix.map { $0 + ":" + local } ?? local
        // The value is the attribute's text children (character references already resolved).
        var value = ""
        var part = attribute.pointee.children
        while let current = part {
            if current.pointee.type == XML_TEXT_NODE { value += text(current.pointee.content) }
            part = current.pointee.next
        }
        let namespaceURI = attribute.pointee.ns.map { text($0.pointee.href) }
        let isXLinkHref = namespaceURI == "http://www.w3.org/1999/xlink" && local == "href"
        let isXMLSpace = namespaceURI == "http://www.w3.org/XML/1998/namespace" && local == "space"
        if local.lowercased().hasPrefix("on") {
            report(node, shown + "=", Message("event handler attribute '\(shown)' on <\(element)> runs script; remove it", ko: "<\(element)>의 이벤트 핸들러 속성 '\(shown)'은(는) 스크립트를 실행합니다; 지우세요"))
            return
        }
        guard isXLinkHref || isXMLSpace || (namespaceURI == nil && attributes.contains(local)) else {
            report(node, shown + "=", Message("attribute '\(shown)' on <\(element)> is not allowed in an SVG logo", ko: "SVG 로고의 <\(element)>에는 '\(shown)' 속성을 쓸 수 없습니다"))
            return
        }
        if local == "href" && !(value.hasPrefix("#") && element == "use") {
            report(
                node, shown + "=",
                Message(
                    "'\(shown)=\"\(value)\"' points outside the file; a logo may only reference its own elements (<use href=\"#id\">)",
                    ko: "'\(shown)=\"\(value)\"'은(는) 파일 밖을 가리킵니다; 로고는 자기 안의 요소만 가리킬 수 있습니다 (<use href=\"#id\">)"))
            return
        }
        // CSS escapes (`u\72l(`) would hide a url() from the scan below; a logo needs none.
        if value.contains("\\") {
            report(node, shown + "=", Message("'\(shown)' holds a backslash (a CSS escape); write the value plainly", ko: "'\(shown)'에 백슬래시(CSS 이스케이프)가 있습니다; 값을 그대로 쓰세요"))
            return
        }
        let folded = value.lowercased().filter { !$0.isWhitespace }
        var rest = Substring(folded)
        while let range = rest.range(of: "url(") {
            let target = rest[range.upperBound...]
            if !(target.hasPrefix("#") || target.hasPrefix("'#") || target.hasPrefix("\"#")) {
                report(
                    node, shown + "=",
                    Message("'\(shown)' references something outside the file (\(value)); only url(#id) is allowed", ko: "'\(shown)'이(가) 파일 밖의 대상을 가리킵니다 (\(value)); url(#id)만 쓸 수 있습니다"))
                return
            }
            rest = target
        }
    }

    private static func namespace(of node: UnsafeMutablePointer<xmlNode>) -> String? {
        node.pointee.ns.map { text($0.pointee.href) }
    }

    private static func text(_ pointer: UnsafePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func text(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// `xmlInitParser` once, before two loading threads may parse at the same time.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()
}
