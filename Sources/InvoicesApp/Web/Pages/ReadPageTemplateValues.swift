import Mustache
import WebServer

// The read pages' models as typed template contexts: each answers a template's `{{name}}`
// with a `switch`, so rendering a 50-row table reads no `Mirror`. (swift-mustache reflects a
// plain struct on every lookup, and WebServer's `TemplateValues` would reflect every row into
// a dictionary first: 2 to 5 ms a page, the most expensive part of a read before.)
//
// A name missing here renders as empty, silently: TemplateContextTests checks that every
// stored property of each model answers under its own name.

extension ColumnHeader: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "label": label
        case "link": link
        case "ariaSort": ariaSort
        case "arrow": arrow
        default: nil
        }
    }
}

extension Pager: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "first": first
        case "last": last
        case "total": total
        case "page": page
        case "pageCount": pageCount
        case "previousLink": previousLink
        case "nextLink": nextLink
        default: nil
        }
    }
}

extension SelectOption: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}

extension ClientRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": TemplateText(String(id))
        case "name": TemplateText(self.name)
        case "email": TemplateText(email)
        case "number": TemplateText(number)
        case "city": TemplateText(city)
        case "country": TemplateText(country)
        case "created": TemplateText(created)
        case "beingEdited": beingEdited
        default: nil
        }
    }
}

extension ClientListPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "search": search
        case "columns": columns
        case "rows": rows
        case "isEmpty": isEmpty
        case "pager": pager
        case "jsonLink": jsonLink
        case "csvLink": csvLink
        default: nil
        }
    }
}

extension InvoiceRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": TemplateText(String(id))
        case "identifier": TemplateText(identifier)
        case "clientID": TemplateText(String(clientID))
        case "clientName": TemplateText(clientName)
        case "money": money
        case "amount": TemplateText(amount)
        case "amountWithoutCurrency": TemplateText(amountWithoutCurrency)
        case "currencyCode": TemplateText(currencyCode)
        case "status": TemplateText(status)
        case "isOverdue": isOverdue
        case "issued": TemplateText(issued)
        case "due": TemplateText(due)
        case "beingEdited": beingEdited
        default: nil
        }
    }
}

extension InvoiceListPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "search": search
        case "statuses": statuses
        case "currencyOptions": currencyOptions
        case "client": client
        case "from": from
        case "to": to
        case "columns": columns
        case "rows": rows
        case "isEmpty": isEmpty
        case "pager": pager
        case "jsonLink": jsonLink
        case "csvLink": csvLink
        case "totals": totals
        case "hasTotals": hasTotals
        default: nil
        }
    }
}

extension InvoiceListPage.TotalRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "currency": currency
        case "count": count
        case "amount": amount
        case "paid": paid
        case "outstanding": outstanding
        default: nil
        }
    }
}

extension ClientPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "name": self.name
        case "email": email
        case "number": number
        case "addressLines": addressLines
        case "created": created
        case "invoices": invoices
        case "hasInvoices": hasInvoices
        case "invoiceCount": invoiceCount
        case "totals": totals
        case "balance": balance
        case "overdue": overdue
        case "beingEdited": beingEdited
        case "setAside": setAside
        case "hasSetAside": hasSetAside
        default: nil
        }
    }
}

extension InvoicePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "identifier": identifier
        case "amount": amount
        case "status": status
        case "isOverdue": isOverdue
        case "daysOverdue": daysOverdue
        case "issued": issued
        case "due": due
        case "notes": notes
        case "clientID": clientID
        case "clientName": clientName
        case "clientEmail": clientEmail
        case "addressLines": addressLines
        case "beingEdited": beingEdited
        case "setAside": setAside
        case "hasSetAside": hasSetAside
        case "payments": payments
        case "hasPayments": hasPayments
        case "paid": paid
        case "balance": balance
        case "takesPayments": takesPayments
        case "lines": lines
        case "net": net
        case "tax": tax
        case "roundingRule": roundingRule
        default: nil
        }
    }
}

extension InvoicePage.LineRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "description": description
        case "quantity": quantity
        case "unitPrice": unitPrice
        case "taxRate": taxRate
        case "net": net
        default: nil
        }
    }
}

extension InvoicePage.PaymentRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "day": day
        case "method": method
        case "amount": amount
        case "note": note
        default: nil
        }
    }
}

extension SetAsideNotice: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "link": link
        case "reason": reason
        case "setAsideAt": setAsideAt
        case "rows": rows
        default: nil
        }
    }
}

extension ConflictRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "property": property
        case "label": label
        case "base": base
        case "theirs": theirs
        case "ours": ours
        default: nil
        }
    }
}
