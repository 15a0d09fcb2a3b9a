"""The Invoices dashboard in a real browser (Debian's chromium, driven by selenium).

Starts `invoices serve` on a free port with a temporary database (demo data seeded), then
does what a visitor does: opens a client, edits it, adds an invoice inside the client's
form, saves, and checks the flash message, the client's page and the invoice list. Then
watches the live inspector (/contexts) follow another tab's unsaved edit without a reload.
Screenshots go to `.build/screenshots/` (or $SCREENSHOT_DIR).

The invoices binary: $INVOICES_BIN, or the first argument when run as a script.
Run: Tests/Browser/run.sh [path/to/invoices]
"""

import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
SCREENSHOTS = os.environ.get("SCREENSHOT_DIR", os.path.join(ROOT, ".build", "screenshots"))
DOWNLOADS = os.path.join(ROOT, ".build", "downloads")
STARTUP_TIMEOUT = 90  # seconds: the demo data (200 clients, 2,000 invoices) is seeded first
WAIT = 15             # seconds for any page to show what the test expects


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`invoices serve` on a free port and a temporary database; stopped with SIGTERM."""

    def __init__(self, binary):
        self.binary = binary
        self.folder = tempfile.mkdtemp(prefix="invoices-browser-")
        self.log_path = os.path.join(self.folder, "server.log")
        self.process = None
        self.base = None

    def start(self):
        for _ in range(3):  # another process could take the port between probe and bind
            port = free_port()
            self.base = "http://127.0.0.1:%d" % port
            self.log = open(self.log_path, "ab")
            self.process = subprocess.Popen(
                [self.binary, "serve", "--db", os.path.join(self.folder, "invoices.sqlite"),
                 "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
            if self._wait_until_answering():
                return
            self.stop()
        raise RuntimeError("invoices serve did not start; its output:\n" + self.output())

    def _wait_until_answering(self):
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.base + "/clients", timeout=2) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            time.sleep(0.2)
        return False

    def output(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-4000:]
        except OSError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--lang=en-US", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking"):
        options.add_argument(argument)
    # Downloads land in a folder of their own, without asking, and PDFs are saved, not shown.
    options.add_experimental_option("prefs", {
        "download.default_directory": DOWNLOADS, "download.prompt_for_download": False,
        "plugins.always_open_pdf_externally": True})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
    return driver


class DashboardInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary = os.environ.get("INVOICES_BIN", "")
        if not binary or not os.access(binary, os.X_OK):
            raise RuntimeError("Set INVOICES_BIN to the invoices executable (got %r)." % binary)
        os.makedirs(SCREENSHOTS, exist_ok=True)
        os.makedirs(DOWNLOADS, exist_ok=True)
        for stale in ("failure.png",):  # only this run's failure is shown
            if os.path.exists(os.path.join(SCREENSHOTS, stale)):
                os.remove(os.path.join(SCREENSHOTS, stale))
        cls.server = Server(binary)
        cls.server.start()
        try:
            cls.driver = browser()
        except Exception:
            cls.server.stop()
            cls.server.remove()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        cls.server.remove()

    # MARK: helpers

    def open(self, path):
        self.driver.get(self.server.base + path)

    def wait_for(self, condition, message):
        return WebDriverWait(self.driver, WAIT).until(condition, message)

    def css(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def heading(self):
        return self.css("main h1").text.strip()

    def click_and_wait(self, button, url_pattern):
        """Clicks a link or submit button and waits for the next page at a URL matching the pattern."""
        old, label = self.css("html"), button.text.strip()
        button.click()
        self.wait_for(lambda d: self.is_gone(old), "the page did not change after clicking %r" % label)
        self.wait_for(lambda d: re.search(url_pattern, d.current_url) and
                      d.execute_script("return document.readyState") == "complete",
                      "expected a page at %s, at %s" % (url_pattern, self.driver.current_url))

    @staticmethod
    def is_gone(element):
        """Whether the element left the document. Chromedriver reports a replaced page either
        as a stale element or as a node that "does not belong to the document" (a plain
        WebDriverException), depending on timing: both mean the page changed."""
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True

    def field(self, name):
        return self.css("form [name='%s']" % name)

    def value(self, name):
        return self.field(name).get_attribute("value")

    def type_into(self, name, text):
        element = self.field(name)
        element.clear()
        element.send_keys(text)
        self.assertEqual(element.get_attribute("value"), text, "the %s input shows what was typed" % name)

    def screenshot(self, name):
        """The whole page, beyond the window's height (Chrome DevTools Page.captureScreenshot)."""
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}})
        path = os.path.join(SCREENSHOTS, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        self.assertGreater(os.path.getsize(path), 1000, "screenshot %s saved" % path)
        print("  screenshot: %s" % os.path.relpath(path, ROOT), file=sys.stderr)

    def assert_no_server_error(self):
        title = self.driver.title
        self.assertNotRegex(title, r"(?i)error|not found|gone|not accepted", "page title: " + title)

    # MARK: the flow

    def test_edit_a_client_and_add_an_invoice(self):
        try:
            self.edit_a_client_and_add_an_invoice()
        except Exception:
            # What the browser showed, and what the server said, for the failure report.
            try:
                print("  failed at %s (title %r)" % (self.driver.current_url, self.driver.title), file=sys.stderr)
                self.screenshot("failure.png")
            except Exception as error:
                print("  no failure screenshot: %s" % error, file=sys.stderr)
            print("  server output (last lines):\n" + self.server.output(), file=sys.stderr)
            raise

    def edit_a_client_and_add_an_invoice(self):
        suffix = uuid.uuid4().hex[:6].upper()
        city = "Browserville " + suffix
        notes = "Added by the browser test " + suffix

        # The client list: open the first client.
        self.open("/clients")
        self.assertEqual(self.heading(), "Clients")
        first = self.css("main table tbody tr td a[href^='/clients/']")
        client_name = first.text.strip()
        self.assertTrue(client_name, "the first client row has a name")
        self.click_and_wait(first, r"/clients/\d+$")
        client_path = "/" + self.driver.current_url.split("/", 3)[3]
        self.assertEqual(self.heading(), client_name)
        details = {dt.text.strip(): dd.text.strip() for dt, dd in zip(
            self.driver.find_elements(By.CSS_SELECTOR, "dl.details dt"),
            self.driver.find_elements(By.CSS_SELECTOR, "dl.details dd"))}
        invoice_count = len(self.driver.find_elements(By.CSS_SELECTOR, "main table tbody tr td a[href^='/invoices/']"))

        # Edit: /clients/{pk}/edit redirects to the form, which shows the client's values.
        self.click_and_wait(self.css(".actions a[href$='/edit']"), r"/forms/[^/?#]+$")
        form_path = "/" + self.driver.current_url.split("/", 3)[3]
        self.assertEqual(self.heading(), "Edit client " + client_name)
        self.assertEqual(self.value("name"), client_name)
        self.assertEqual(self.value("email"), details.get("Email", ""))
        self.assertEqual(self.value("number"), details.get("Client number", ""))
        self.assertTrue(self.value("csrf"), "the form carries a CSRF token")
        self.type_into("city", city)

        # Add an invoice inside the client's form: its own form, saved with the client.
        self.click_and_wait(self.css("button[name='action'][value='add-invoice']"), r"/forms/[^/?#]+$")
        self.assertNotEqual("/" + self.driver.current_url.split("/", 3)[3], form_path)
        self.assertEqual(self.heading(), "New invoice (saved with its client)")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "form [name='client']"), [],
                         "the client is fixed: no client choice in a nested invoice form")
        self.assertRegex(self.value("issueDate"), r"^\d{4}-\d{2}-\d{2}$")
        self.assertRegex(self.value("dueDate"), r"^\d{4}-\d{2}-\d{2}$")
        # No number typed: the invoice is numbered when it is saved as sent.
        self.assertEqual(self.value("identifier"), "")
        self.type_into("notes", notes)
        Select(self.field("currency")).select_by_value("EUR")
        # Three lines, each added by its button (no script): every press keeps what was typed.
        lines = [("Design workshop", "2", "450.00", "19"), ("Hosting", "1", "19.99", "19"), ("Travel", "3", "0.10", "7")]
        for index, (description, quantity, price, tax) in enumerate(lines):
            if index > 0:
                self.click_and_wait(self.css("button[name='action'][value='add-line']"), r"/forms/[^/?#]+$")
                self.assertEqual(self.value("notes"), notes, "adding a line keeps the rest")
            for column, text in (("description", description), ("quantity", quantity), ("unitPrice", price),
                                 ("taxRate", tax)):
                self.type_into("line-%d-%s" % (index, column), text)
        Select(self.field("status")).select_by_value("sent")
        self.assertEqual(Select(self.field("currency")).first_selected_option.get_attribute("value"), "EUR")
        self.assertEqual(Select(self.field("status")).first_selected_option.get_attribute("value"), "sent")
        self.screenshot("invoice-form.png")
        done = self.css("button[name='action'][value='save']")
        self.assertEqual(done.text.strip(), "Done")
        self.click_and_wait(done, re.escape(form_path) + "$")

        # Back in the client's form: the typed city is kept, the invoice is listed, unsaved.
        self.assertEqual(self.heading(), "Edit client " + client_name)
        self.assertEqual(self.value("city"), city)
        nested = self.driver.find_elements(By.CSS_SELECTOR, "#field-invoices table tbody tr")
        self.assertEqual(len(nested), 1, "one invoice added in this form")
        self.assertEqual(nested[0].find_element(By.CSS_SELECTOR, "td a").text.strip(), "numbered on save")
        # 900.00 + 19.99 + 0.30 net; 171.00 + 3.80 + 0.02 tax, each line rounded to cents.
        self.assertEqual(nested[0].find_element(By.CSS_SELECTOR, "td.num").text.strip(), "1,095.11 EUR")
        self.screenshot("client-form.png")

        # Save: back to the client's page with the flash message, the new city and the invoice.
        save = self.css(".buttons button[name='action'][value='save']")
        self.assertEqual(save.text.strip(), "Save")
        self.click_and_wait(save, re.escape(client_path) + "$")
        self.assert_no_server_error()
        self.assertEqual(self.css("main p.flash[role='status']").text.strip(),
                         "Client \u201c%s\u201d saved." % client_name)
        self.assertEqual(self.heading(), client_name)
        self.assertIn(city, self.css("dl.details").text)
        rows = [row for row in self.driver.find_elements(By.CSS_SELECTOR, "main table tbody tr")
                if "1,095.11 EUR" in row.text and row.find_elements(By.CSS_SELECTOR, "td a[href^='/invoices/']")]
        self.assertEqual(len(rows), 1, "the new invoice is in the client's list")
        cells = [cell.text.strip() for cell in rows[0].find_elements(By.TAG_NAME, "td")]
        # Numbered by the save, in the year's sequence.
        invoice_number = cells[0]
        self.assertRegex(invoice_number, r"^INV-\d{4}-\d{5}$")
        self.assertEqual(cells[1], client_name)
        self.assertEqual(cells[2], "1,095.11 EUR")
        self.assertEqual(cells[3], "sent")
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "main table tbody tr td a[href^='/invoices/']")),
                         invoice_count + 1)
        self.assertIn("(%d)" % (invoice_count + 1), self.css("main table caption").text)
        self.screenshot("client-saved.png")

        # The flash is shown once.
        self.open(client_path)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "main p.flash"), [])
        self.assertIn(city, self.css("dl.details").text)

        # The invoice list: search for it.
        self.open("/invoices")
        self.assertEqual(self.heading(), "Invoices")
        self.type_into("q", invoice_number)
        self.click_and_wait(self.css("form.filters button[type='submit']"), r"/invoices\?")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "main table.invoices tbody tr")
        self.assertEqual(len(rows), 1, "one invoice matches " + invoice_number)
        totals = self.css("section.totals").text
        self.assertIn("1,095.11 EUR", totals, "the list's totals per currency")
        cells = [cell.text.strip() for cell in rows[0].find_elements(By.TAG_NAME, "td")]
        self.assertEqual([cells[0], cells[1], cells[3], cells[4]], [invoice_number, client_name, "EUR", "sent"])
        self.assertEqual(cells[2], "1,095.11", "the currency is shown once, in its own column")

        # Its page.
        self.click_and_wait(rows[0].find_element(By.LINK_TEXT, invoice_number), r"/invoices/\d+$")
        self.assert_no_server_error()
        self.assertIn(invoice_number, self.heading())
        self.assertIn(client_name, self.css("main").text)
        for description, _, _, _ in lines:
            self.assertIn(description, self.css("main").text)

        # Its PDF, downloaded as a person would: the lines and the total are in it.
        for stale in os.listdir(DOWNLOADS):
            os.remove(os.path.join(DOWNLOADS, stale))
        self.css(".actions a[href$='.pdf']").click()
        text = self.downloaded_pdf_text()
        for expected in [invoice_number, client_name, "Design workshop", "Hosting", "Travel", "1,095.11"]:
            self.assertIn(expected, text)


    # MARK: the live inspector

    def test_inspector_follows_a_form_live(self):
        try:
            self.inspector_follows_a_form_live()
        except Exception:
            try:
                print("  failed at %s (title %r)" % (self.driver.current_url, self.driver.title), file=sys.stderr)
                self.screenshot("failure.png")
            except Exception as error:
                print("  no failure screenshot: %s" % error, file=sys.stderr)
            print("  server output (last lines):\n" + self.server.output(), file=sys.stderr)
            raise

    def inspector_follows_a_form_live(self):
        city = "Inspectville " + uuid.uuid4().hex[:6].upper()

        # The inspector in one tab: the picture of the stack, and the script listening.
        self.open("/contexts")
        self.assertEqual(self.heading(), "Contexts")
        inspector = self.driver.current_window_handle
        self.assertTrue(self.driver.find_elements(By.CSS_SELECTOR, ".stack-picture .ctx.main"))
        self.wait_for(lambda d: self.css("#inspector-live").get_attribute("data-listening") == "yes",
                      "the inspector's event stream did not open")
        # A mark that a reload would wipe: the page must update in place.
        self.driver.execute_script("window.inspectorMark = 'still here';")

        # A visitor edits a client in another tab and adds an invoice inside the form: the
        # scratchpad now holds an updated client and an inserted invoice, nothing saved.
        self.driver.switch_to.new_window("tab")
        self.open("/clients")
        self.click_and_wait(self.css("main table tbody tr td a[href^='/clients/']"), r"/clients/\d+$")
        self.click_and_wait(self.css(".actions a[href$='/edit']"), r"/forms/[^/?#]+$")
        self.type_into("city", city)
        self.click_and_wait(self.css("button[name='action'][value='add-invoice']"), r"/forms/[^/?#]+$")

        # Back in the inspector: the change arrived by itself.
        self.driver.switch_to.window(inspector)
        self.wait_for(lambda d: city in self.css("#inspector-live").text,
                      "the inspector did not show the pending city without a reload")
        self.assertEqual(self.driver.execute_script("return window.inspectorMark;"), "still here")
        live = self.css("#inspector-live").text
        self.assertIn("only in the scratchpad", live)
        self.assertIn("temporary ID", live)
        # The new invoice's line has no description yet, so the scratchpad would not save,
        # and says why.
        self.assertIn("would not save now", live)
        self.assertIn("LineItem.itemDescription", live)
        self.assertTrue(self.driver.find_elements(By.CSS_SELECTOR, ".stack-picture .ctx.scratchpad.no-save"),
                        "the picture marks the scratchpad that would not save")
        self.screenshot("inspector.png")

        # The documentation quotes the live figures.
        self.open("/docs/nested-contexts")
        self.assertEqual(self.heading(), "Nested contexts")
        self.assertIn("1 scratchpads open", self.css("main").text)
        self.screenshot("docs.png")

    def downloaded_pdf_text(self):
        """Waits for the PDF the browser is downloading and returns its text (pdftotext)."""
        deadline = time.monotonic() + WAIT
        files = []
        while time.monotonic() < deadline:
            files = [f for f in os.listdir(DOWNLOADS) if f.endswith(".pdf")]
            if files:
                break
            time.sleep(0.1)
        self.assertTrue(files, "no PDF was downloaded to %s" % DOWNLOADS)
        path = os.path.join(DOWNLOADS, files[0])
        with open(path, "rb") as f:
            self.assertEqual(f.read(5), b"%PDF-")
        return subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True, check=True).stdout

    def test_download_an_invoice_as_pdf(self):
        for stale in os.listdir(DOWNLOADS):
            os.remove(os.path.join(DOWNLOADS, stale))
        self.open("/invoices")
        self.click_and_wait(self.css("main table tbody tr td a[href^='/invoices/']"), r"/invoices/\d+$")
        number = self.heading().replace("Invoice", "").strip()
        self.css(".actions a[href$='.pdf']").click()
        text = self.downloaded_pdf_text()
        self.assertIn(number, text)
        self.assertIn("Balance due", text)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        os.environ["INVOICES_BIN"] = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
