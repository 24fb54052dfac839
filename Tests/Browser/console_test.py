"""The console (`GET /console`) in headless Chromium, against a real `winnow serve`.

Usage: console_test.py WINNOW_BINARY. Run by Tests/Browser/run (which installs what it needs).
Each case prints `ok NAME` or fails with the reason; the exit status is 0 only if all pass.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

TOKEN = "console-admin-token"


def start_server(binary, work):
    apps = os.path.join(work, "apps")
    os.makedirs(apps)
    with open(os.path.join(apps, "app1.txt"), "w", encoding="utf-8") as f:
        f.write("秒杀 => **\nappword\n")
    with open(os.path.join(apps, "app2.txt"), "w", encoding="utf-8") as f:
        f.write("团购\n")
    secrets = os.path.join(apps, "secrets.json")
    with open(secrets, "w", encoding="utf-8") as f:
        f.write('{"app1":"s3cret","app2":"s3cret"}')
    os.chmod(secrets, 0o600)
    token = os.path.join(work, "token")
    with open(token, "w", encoding="utf-8") as f:
        f.write(TOKEN + "\n")
    os.chmod(token, 0o600)
    log = open(os.path.join(work, "serve.log"), "w+", encoding="utf-8")
    env = dict(os.environ, WINNOW_CACHE_DIR=os.path.join(work, "cache"))
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--threads", "2", "--apps", apps, "--admin-token-file", token],
        stdout=subprocess.DEVNULL, stderr=log, env=env)
    deadline = time.time() + 120
    port = None
    while time.time() < deadline and port is None:
        log.seek(0)
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)\s", log.read())
        if found:
            port = int(found.group(1))
        elif process.poll() is not None:
            raise SystemExit("winnow serve exited: " + open(log.name, encoding="utf-8").read())
        else:
            time.sleep(0.1)
    if port is None:
        raise SystemExit("winnow serve did not listen within 120 s")
    base = f"http://127.0.0.1:{port}"
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=5) as answer:
                if answer.status == 200:
                    return process, base
        except Exception:
            time.sleep(0.2)
    raise SystemExit("winnow serve was not ready within 120 s")


def moderate(base, text, app="app1"):
    item = {"msgUID": "m", "targetId": "t", "conversationType": 1, "content": {"content": text},
            "sentTime": 1, "appKey": app}
    request = urllib.request.Request(base + "/v1/moderate", data=json.dumps(item).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["verdict"]


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    # A headless window is at least 500 px wide: narrower viewports are emulated, as a phone's.
    if width < 500:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    return driver


def wait_text(driver, element_id, predicate, what, timeout=15):
    try:
        WebDriverWait(driver, timeout).until(lambda d: predicate(d.find_element(By.ID, element_id).text))
    except TimeoutException:
        raise AssertionError(f"{what}: #{element_id} reads {driver.find_element(By.ID, element_id).text!r}")


def sign_in(driver, base, token):
    driver.get(base + "/console")
    field = driver.find_element(By.CSS_SELECTOR, "input[id*=token]")
    field.clear()
    field.send_keys(token)
    driver.find_element(By.ID, "token-save").click()


def try_text(driver, text):
    box = driver.find_element(By.ID, "try-text")
    box.clear()
    # send_keys cannot type every character; the value is set as a user's paste would.
    driver.execute_script("arguments[0].value = arguments[1];", box, text)
    driver.find_element(By.ID, "try-run").click()


def errors_in_log(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def main():
    binary = sys.argv[1]
    shots = os.environ.get("WINNOW_SCREENSHOTS")
    failures = []
    with tempfile.TemporaryDirectory() as work:
        shots = shots or work
        os.makedirs(shots, exist_ok=True)
        process, base = start_server(binary, work)
        driver = browser(1280, 1000)
        try:
            def case(name, body):
                try:
                    body()
                    print("ok", name)
                except Exception as error:  # a failed case is reported, the others still run
                    failures.append(f"{name}: {error}")
                    print("FAILED", name, "-", error)

            def loads_without_errors():
                driver.get(base + "/console")
                WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "token-status").text != "")
                assert driver.find_element(By.ID, "try-text").tag_name == "textarea"
                assert TOKEN not in driver.page_source, "the token is in the page"
                assert not driver.get_cookies(), "the page set cookies"
                errors = errors_in_log(driver)
                assert not errors, f"console errors: {errors}"

            def wrong_token_is_refused():
                sign_in(driver, base, "not-the-token")
                wait_text(driver, "token-status", lambda t: "refused" in t, "a wrong token")
                stored = driver.execute_script("return sessionStorage.getItem('winnow-token')")
                assert stored is None, f"a refused token stays stored: {stored!r}"

            def blocked_with_file_and_line():
                sign_in(driver, base, TOKEN)
                wait_text(driver, "token-status", lambda t: t == "signed in", "the right token")
                stored = driver.execute_script("return sessionStorage.getItem('winnow-token')")
                assert stored == TOKEN, "the token is not kept in sessionStorage under winnow-token"
                Select(driver.find_element(By.ID, "app-select")).select_by_value("app1")
                try_text(driver, "你是傻逼")
                wait_text(driver, "try-verdict", lambda t: "blocked" in t, "你是傻逼")
                matches = driver.find_element(By.ID, "try-matches").text
                assert re.search(r"zh\.txt:\d+", matches), f"no list file and line in {matches!r}"
                assert "傻逼" in matches
                record = driver.find_element(By.ID, "try-record").text
                assert '"blockType":1' in record, f"no record of the block: {record!r}"
                driver.save_screenshot(os.path.join(shots, "console-try.png"))

            def replaced_and_suppressed():
                try_text(driver, "秒杀 today")
                wait_text(driver, "try-verdict", lambda t: "replaced" in t, "秒杀 (app1 replaces it)")
                assert "**" in driver.find_element(By.ID, "try-rewritten").text

            def a_word_added_in_the_page_blocks():
                word = "控台词"
                assert moderate(base, "买" + word) == "pass"
                Select(driver.find_element(By.ID, "app-select")).select_by_value("app1")
                wait_text(driver, "words-table", lambda t: "appword" in t, "the list of app1")
                driver.find_element(By.ID, "word-new").send_keys(word)
                driver.find_element(By.ID, "word-add").click()
                wait_text(driver, "words-table", lambda t: word in t, "the added word")
                assert moderate(base, "买" + word) == "blocked", "/v1/moderate does not block the added word"
                wait_text(driver, "changes", lambda t: word in t and "add" in t, "the audit log")
                driver.save_screenshot(os.path.join(shots, "console-list.png"))
                # Removed again through the page.
                rows = driver.find_elements(By.CSS_SELECTOR, "#words-table tr")
                row = next(r for r in rows if r.text.startswith(word))
                row.find_element(By.XPATH, ".//button[text()='Remove']").click()
                wait_text(driver, "words-table", lambda t: word not in t, "the removed word")
                assert moderate(base, "买" + word) == "pass"

            def markup_is_shown_as_text():
                hostile = '傻逼<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
                try_text(driver, hostile)
                wait_text(driver, "try-verdict", lambda t: "blocked" in t, "the hostile text")
                assert driver.execute_script("return window.pwned") is None, "markup from the text ran"
                highlight = driver.find_element(By.ID, "try-highlight")
                assert "<img src=x" in highlight.text, f"the text is not shown as text: {highlight.text!r}"
                for container in ["try-highlight", "try-matches", "recent-items"]:
                    element = driver.find_element(By.ID, container)
                    assert not element.find_elements(By.TAG_NAME, "img"), f"an <img> in #{container}"
                    assert not element.find_elements(By.TAG_NAME, "script"), f"a <script> in #{container}"
                try:
                    driver.switch_to.alert
                    raise AssertionError("an alert opened")
                except NoAlertPresentException:
                    pass
                # The hostile text through /v1/moderate lands in the recent decisions, as text.
                moderate(base, hostile)
                driver.refresh()
                wait_text(driver, "recent-items", lambda t: "blocked" in t, "the recent decisions")
                assert driver.execute_script("return window.pwned") is None
                assert not driver.find_element(By.ID, "recent-items").find_elements(By.TAG_NAME, "img")

            def no_request_to_another_host():
                hosts = driver.execute_script(
                    "return performance.getEntriesByType('resource').map(e => new URL(e.name).host)")
                own = base.split("//")[1]
                assert all(host == own for host in hosts), f"requests to other hosts: {hosts}"
                # The refused token's 401 is logged by the browser; nothing else may be.
                errors = [e for e in errors_in_log(driver) if "status of 401" not in e["message"]]
                assert not errors, f"console errors: {errors}"

            case("the page loads with no console errors", loads_without_errors)
            case("a wrong token is refused", wrong_token_is_refused)
            case("你是傻逼 shows blocked with the entry's file and line", blocked_with_file_and_line)
            case("a replacement shows the rewritten text", replaced_and_suppressed)
            case("a word added through the page makes /v1/moderate block it", a_word_added_in_the_page_blocks)
            case("markup in a message is shown as text", markup_is_shown_as_text)
            case("no request goes to another host", no_request_to_another_host)
        finally:
            driver.quit()

        narrow = browser(375, 812)
        try:
            def works_at_375_pixels():
                sign_in(narrow, base, TOKEN)
                wait_text(narrow, "token-status", lambda t: t == "signed in", "the right token")
                width = narrow.execute_script("return document.documentElement.scrollWidth")
                viewport = narrow.execute_script("return window.innerWidth")
                assert viewport == 375, f"the viewport is {viewport} px wide"
                assert width <= viewport, f"the page is {width} px wide in a {viewport} px viewport"
                try_text(narrow, "你是傻逼")
                wait_text(narrow, "try-verdict", lambda t: "blocked" in t, "你是傻逼 at 375 px")
                narrow.save_screenshot(os.path.join(shots, "console-mobile.png"))
                width = narrow.execute_script("return document.documentElement.scrollWidth")
                assert width <= viewport, f"with a verdict the page is {width} px wide in {viewport} px"

            try:
                works_at_375_pixels()
                print("ok the page works at 375 px wide")
            except Exception as error:
                failures.append(f"the page works at 375 px wide: {error}")
                print("FAILED the page works at 375 px wide -", error)
        finally:
            narrow.quit()
            process.terminate()
            process.wait(timeout=30)
    if failures:
        print(f"{len(failures)} browser case(s) failed", file=sys.stderr)
        sys.exit(1)
    print("all browser cases passed")


if __name__ == "__main__":
    main()
