import InvoicesApp
print("invoices")
