import HTTPTypes
import Testing
import WebServer

/// Content-Disposition parameters read as RFC 7578 and RFC 2183 write them: quoted strings
/// with escapes, `;` only between parameters, names in any case, nothing ambiguous guessed.
@Suite struct MultipartDispositionTests {
    /// The form of a body with one part under `disposition`, holding `content`.
    private func form(disposition: String, content: String = "value",
                      contentType: String = "multipart/form-data; boundary=b0undary") throws(HTTPError) -> FormData {
        let body = "--b0undary\r\nContent-Disposition: \(disposition)\r\n\r\n\(content)\r\n--b0undary--\r\n"
        let request = Request(method: .post, path: "/upload", headers: [.contentType: contentType], body: Array(body.utf8))
        return try request.form()
    }

    /// The 400's message for a part under `disposition`.
    private func refusal(_ disposition: String) -> String? {
        do {
            _ = try form(disposition: disposition)
            return nil
        } catch {
            #expect(error.status == .badRequest)
            return error.message
        }
    }

    @Test func aSemicolonInsideAQuotedFilenameDoesNotStartAParameter() throws {
        let parsed = try form(disposition: #"form-data; filename="a;name=evil"; name="file""#)
        #expect(parsed.fields.isEmpty)
        #expect(parsed.files.map(\.fieldName) == ["file"])
        #expect(parsed.files.map(\.filename) == ["a;name=evil"])
    }

    @Test func escapedQuotesAndBackslashesAreUnescaped() throws {
        let quoted = try form(disposition: #"form-data; name="say \"hi\"""#)
        #expect(quoted.fields.pairs.map(\.name) == [#"say "hi""#])
        let escapedQuoteThenSemicolon = try form(disposition: #"form-data; filename="a\";name=evil"; name="file""#)
        #expect(escapedQuoteThenSemicolon.files.map(\.fieldName) == ["file"])
        #expect(escapedQuoteThenSemicolon.files.map(\.filename) == [#"a";name=evil"#])
        let backslash = try form(disposition: #"form-data; name="back\\slash""#)
        #expect(backslash.fields.pairs.map(\.name) == [#"back\slash"#])
    }

    @Test func aWindowsPathSentUnescapedKeepsItsLastComponent() throws {
        let parsed = try form(disposition: #"form-data; name="file"; filename="C:\Users\me\march.csv""#)
        #expect(parsed.files.map(\.filename) == ["march.csv"])
    }

    @Test func aSlashFollowedByACombiningMarkStillEndsADirectory() throws {
        let parsed = try form(disposition: "form-data; name=\"file\"; filename=\"../\u{301}etc/\u{301}passwd\"")
        #expect(parsed.files.map(\.filename) == ["\u{301}passwd"])
        #expect(parsed.files.allSatisfy { !$0.filename.utf8.contains(UInt8(ascii: "/")) })
    }

    @Test func parameterNamesAndTheTypeAreCaseInsensitive() throws {
        let parsed = try form(disposition: #"Form-Data; NAME="Note"; FileName="x.txt""#)
        #expect(parsed.files.map(\.fieldName) == ["Note"])
        #expect(parsed.files.map(\.filename) == ["x.txt"])
        let token = try form(disposition: "form-data;name=plain ;  ")
        #expect(token.fields["plain"] == "value")
    }

    @Test func aQuotedBoundaryIsRead() throws {
        let parsed = try form(disposition: #"form-data; name="a""#,
                            contentType: #"Multipart/Form-Data; charset=utf-8; BOUNDARY="b0undary""#)
        #expect(parsed["a"] == "value")
    }

    @Test func ambiguousDispositionsAreRefusedWithTheReason() {
        #expect(refusal(#"form-data; name="never closed"#)?.contains("is never closed") == true)
        #expect(refusal(#"form-data; name="a"b"#)?.contains("text follows the quoted value of name") == true)
        #expect(refusal(#"form-data; name=a"b"#)?.contains("has a quote inside it") == true)
        #expect(refusal(#"form-data; name="a"; NAME="b""#)?.contains("the parameter name is given twice") == true)
        #expect(refusal(#"form-data; name"#)?.contains("has no '='") == true)
        #expect(refusal(#"form-data; na me="x""#)?.contains("is not a parameter name") == true)
        #expect(refusal(#"form-datax; name="a""#)?.contains("no Content-Disposition form-data name") == true)
        #expect(refusal(#"form-data; filename="only.txt""#)?.contains("no Content-Disposition form-data name") == true)
    }

    @Test func twoDispositionHeadersInOnePartAreRefused() {
        let body = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nv\r\n--b--\r\n"
        let request = Request(method: .post, path: "/", headers: [.contentType: "multipart/form-data; boundary=b"],
                              body: Array(body.utf8))
        #expect(throws: HTTPError.self) { try request.form() }
    }

    @Test func aNULInAnURLEncodedFieldValueIsKept() throws {
        let request = Request(method: .post, path: "/", headers: [.contentType: "application/x-www-form-urlencoded"],
                              body: Array("identifier=IMP-NUL%00TAIL&note=a%0Ab".utf8))
        let form = try request.form()
        #expect(form["identifier"] == "IMP-NUL\u{0}TAIL")
        #expect(form["note"] == "a\nb")
    }
}
