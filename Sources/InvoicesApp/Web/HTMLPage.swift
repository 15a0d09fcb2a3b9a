import Foundation
import WebServer

/// What every page's layout shows besides the page itself: the title, the navigation's
/// current section, the one-time flash message and the session's CSRF token (for the forms
/// a page holds).
struct PageChrome: Sendable {
    var title: String
    /// `clients`, `invoices`, `contexts` or `docs`: which navigation link is current.
    var section: String
    var flash: String?
    var csrf: String
}

/// The values a template sees: the page's own values under `page`, the chrome at the top
/// (`title`, `flash`, `csrf`, and `nav.clients`/`nav.invoices` for the current link).
struct TemplateContext {
    let title: String
    let flash: String?
    let csrf: String
    let navClients: Bool
    let navInvoices: Bool
    let navContexts: Bool
    let navDocs: Bool
    let page: Any

    init(chrome: PageChrome, page: Any) {
        title = chrome.title
        flash = chrome.flash
        csrf = chrome.csrf
        navClients = chrome.section == "clients"
        navInvoices = chrome.section == "invoices"
        navContexts = chrome.section == "contexts"
        navDocs = chrome.section == "docs"
        self.page = page
    }
}
