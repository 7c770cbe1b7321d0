"""A user in JupyterLab: headless Chromium driven by Selenium, run by the
virtual environment tests/peers/venv.sh makes (`venv.sh jupyter`), for
tests/integration/test_jupyterlab.py (pytest's Python has no Selenium).

    lab_peer.py URL PROFILE_DIR

One browser for the whole run; it reads one call a line on stdin, a JSON list
[METHOD, ARG...] naming a method of Lab below, and answers a line on stdout:
{"ok": RESULT} or {"error": "WHAT"} (a wait that ran out says what it waited
for, and what the page showed). Ends at end of input, closing the browser.
Every wait is for what the page shows (WebDriverWait), WAIT seconds at most."""

import json
import shutil
import sys

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 60          # seconds a page may take on a loaded machine: a slow page passes late
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


class Lab:
    """JupyterLab's page, driven as a user drives it."""

    def __init__(self, url, profile):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1024,600", "--user-data-dir=" + profile]:
            options.add_argument(a)
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.url = url

    def _wait(self, what, predicate):
        w = WebDriverWait(self.d, WAIT, ignored_exceptions=(NoSuchElementException,
                                                            StaleElementReferenceException))
        try:
            return w.until(lambda d: predicate())
        except Exception as e:
            raise RuntimeError("waiting for %s: %s; the page shows %s, dialogs %s"
                               % (what, type(e).__name__, self.items(), self.dialogs())) from e

    def _find(self, css):
        return self.d.find_element(By.CSS_SELECTOR, css)

    def _item(self, name):
        for e in self.d.find_elements(By.CSS_SELECTOR, ".jp-DirListing-content .jp-DirListing-item"):
            if e.find_element(By.CSS_SELECTOR, ".jp-DirListing-itemText").text == name:
                return e
        return None

    def _folder(self):
        return self._find(".jp-BreadCrumbs").text.strip("/")

    def items(self):
        """The names the file browser lists."""
        try:
            return [e.text for e in self.d.find_elements(
                By.CSS_SELECTOR, ".jp-DirListing-content .jp-DirListing-itemText")]
        except StaleElementReferenceException:
            return self.items()

    def dialogs(self):
        """What the dialogs on the page say (an error's title and text)."""
        return [e.text for e in self.d.find_elements(By.CSS_SELECTOR, ".jp-Dialog-content")]

    def home(self):
        """The page anew, its file browser at the server's root; what it lists."""
        self.d.get(self.url + "/lab?reset")
        return self.wait_items()

    def wait_items(self, present=(), absent=()):
        """The file browser's names once they hold present and not absent."""
        def ok():
            names = self.items()
            # an entry is drawn before its name is written into it
            return names and all(names) and set(present) <= set(names) \
                and not set(absent) & set(names) and names
        return self._wait("%s listed, %s not" % (present, absent), ok)

    def open(self, name):
        """Double-clicks name in the file browser (a folder: the browser goes in)."""
        ActionChains(self.d).double_click(
            self._wait(name + " listed", lambda: self._item(name))).perform()

    def cd(self, *names):
        """Into each folder of names in turn, double-clicking (wait_items then
        waits for its listing)."""
        for name in names:
            into = (self._folder() + "/" + name).strip("/")
            self.open(name)
            self._wait("the folder " + into, lambda: self._folder() == into)

    def editor_text(self, name):
        """The text in the editor of the current tab once the tab is name's and
        the text is there (an empty file would never be); an error dialog instead
        fails, with its words."""
        def shown():
            dialogs = self.dialogs()
            if dialogs:
                return {"dialog": dialogs}
            tab = self._find(".jp-mod-current.lm-TabBar-tab .lm-TabBar-tabLabel").text
            return tab == name and self._find(
                ".jp-MainAreaWidget:not(.lm-mod-hidden) .jp-FileEditor .cm-content").text
        got = self._wait("the editor of " + name, shown)
        if isinstance(got, dict):
            raise RuntimeError("JupyterLab said: %s" % got["dialog"])
        return got

    def upload(self, path):
        """The Upload button, and path picked in the file dialog it opens: the
        browser's own dialog cannot be driven headless, so the file input it
        would fill is put in the page and filled (the upload is the page's)."""
        self.d.execute_script(
            "const click = HTMLInputElement.prototype.click;"
            "HTMLInputElement.prototype.click = function () {"
            "  if (this.type !== 'file') return click.call(this);"
            "  this.id = 'arenafs-picked'; document.body.appendChild(this); };")
        self._find(".jp-id-upload").click()
        self._wait("the file input", lambda: self._find("#arenafs-picked")).send_keys(path)

    def delete(self, name):
        """Delete from name's context menu, and the dialog's Delete."""
        ActionChains(self.d).context_click(
            self._wait(name + " listed", lambda: self._item(name))).perform()
        self._wait("the context menu", lambda: self._find(
            '.lm-Menu-item[data-command="filebrowser:delete"]')).click()
        self._wait("the Delete dialog", lambda: self._find(
            ".jp-Dialog-button.jp-mod-accept")).click()

    def run_first_cell(self, notebook):
        """Opens notebook, runs its first cell once the kernel is idle: its output."""
        self.open(notebook)
        # the status bar's "Python 3 (ipykernel) | Idle": the kernel connected (a run
        # asked before it is lost; the toolbar's indicator says idle before that)
        self._wait("the kernel", lambda: any(e.text.endswith("| Idle") for e in
                   self.d.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-TextItem")))
        self._find(".jp-Notebook .jp-Cell .jp-InputPrompt").click()
        self._find('[data-command="notebook:run-cell-and-select-next"]').click()
        return self._wait("the cell's output", lambda: self._find(".jp-OutputArea-output").text)

    def screenshot(self, path):
        return self.d.save_screenshot(path)


def main(url, profile):
    lab = Lab(url, profile)
    try:
        for line in sys.stdin:
            method, *args = json.loads(line)
            try:
                answer = {"ok": getattr(lab, method)(*args)}
            except Exception as e:
                answer = {"error": "%s: %s" % (type(e).__name__, e)}
            print(json.dumps(answer), flush=True)
    finally:
        lab.d.quit()


if __name__ == "__main__":
    main(*sys.argv[1:])
