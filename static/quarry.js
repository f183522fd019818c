// Quarry's page script: keyboard submit, SSE resume after a full
// reconnect, the citation evidence panel, copying the share link and the
// task form's time zone.
// Every page works without it. No inline handlers (the CSP forbids them).
(function () {
  "use strict";

  // Ctrl/Cmd+Enter submits the form of the focused textarea.
  document.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target.form) {
      e.preventDefault();
      if (e.target.form.requestSubmit) e.target.form.requestSubmit(); else e.target.form.submit();
    }
  });

  // The page was rendered up to data-last-seq; the SSE URL asks for events
  // after it. Track the newest event id so that when htmx re-creates the
  // EventSource from scratch (which drops Last-Event-ID) it resumes after
  // the last event shown, never replaying one twice.
  var lastSeq = 0;
  var holder = document.querySelector("[data-last-seq]");
  if (holder) lastSeq = parseInt(holder.getAttribute("data-last-seq"), 10) || 0;
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    var id = parseInt(e.detail && e.detail.lastEventId, 10);
    if (id > 0) {
      if (id <= lastSeq) { e.preventDefault(); return; }
      lastSeq = id;
    }
  });
  // Scripts are deferred in order (htmx, its SSE extension, this one), so
  // htmx exists here and has not yet connected anything.
  if (window.htmx) {
    var create = window.htmx.createEventSource;
    window.htmx.createEventSource = function (url) {
      return create(url.replace(/([?&]after=)\d+/, "$1" + lastSeq));
    };
  }

  // The citation panel. A citation links to its evidence entry (#ev-N),
  // which is all a browser without this script needs. Here a click opens
  // a copy of that entry in a panel (pinned until closed); pointing at a
  // citation for a moment previews it.
  var openLink = null, pinned = false, hoverTimer = 0, leaveTimer = 0;

  function panel() { return document.getElementById("citation-detail"); }

  function openPanel(link, pin) {
    var p = panel(), ev = document.getElementById(link.getAttribute("data-ev"));
    if (!p || !ev) return false;
    var body = p.querySelector(".cite-panel-body");
    var box = document.createElement("div");
    box.className = "ev-copy";
    Array.prototype.forEach.call(ev.childNodes, function (n) { box.appendChild(n.cloneNode(true)); });
    Array.prototype.forEach.call(box.querySelectorAll("[id]"), function (n) { n.removeAttribute("id"); });
    var back = box.querySelector(".ev-back");
    if (back) { back.textContent = "In the evidence list"; back.setAttribute("href", "#" + ev.id); }
    body.replaceChildren(box);
    p.querySelector("h2").textContent = "Evidence for [" + (link.getAttribute("data-cite") || "") + "]";
    if (openLink && openLink !== link) openLink.removeAttribute("aria-expanded");
    openLink = link;
    link.setAttribute("aria-expanded", "true");
    p.setAttribute("data-cite", link.getAttribute("data-cite") || "");
    p.hidden = false;
    pinned = pinned || pin;
    if (pin) p.focus({ preventScroll: true });
    return true;
  }

  function closePanel(returnFocus) {
    var p = panel();
    clearTimeout(hoverTimer);
    clearTimeout(leaveTimer);
    if (!p || p.hidden) return;
    p.hidden = true;
    if (openLink) {
      openLink.removeAttribute("aria-expanded");
      if (returnFocus && document.body.contains(openLink)) openLink.focus();
    }
    openLink = null;
    pinned = false;
  }

  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("a.citation[data-ev]");
    if (link && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      clearTimeout(hoverTimer);
      if (openPanel(link, true)) e.preventDefault();
      return;
    }
    if (e.target.closest && e.target.closest("[data-close-panel]")) { closePanel(true); return; }
    var p = panel();
    if (p && !p.hidden && !p.contains(e.target)) closePanel(false);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") closePanel(true);
  });
  // On a touch screen a tap sends mouseover before its click, which pins
  // the panel at once, so this is harmless there.
  document.addEventListener("mouseover", function (e) {
    var t = e.target;
    if (!t.closest) return;
    var link = t.closest("a.citation[data-ev]");
    if (link) {
      clearTimeout(leaveTimer);
      if (pinned) return;
      clearTimeout(hoverTimer);
      hoverTimer = setTimeout(function () { openPanel(link, false); }, 250);
    } else if (t.closest("#citation-detail")) {
      clearTimeout(leaveTimer);
    }
  });
  document.addEventListener("mouseout", function (e) {
    var t = e.target;
    if (!t.closest || !(t.closest("a.citation[data-ev]") || t.closest("#citation-detail"))) return;
    var to = e.relatedTarget;
    if (to && to.closest && (to.closest("#citation-detail") || to === openLink)) return;
    clearTimeout(hoverTimer);
    if (!pinned) leaveTimer = setTimeout(function () { closePanel(false); }, 400);
  });

  // The streamed draft scrolls inside its box (so nothing below it moves);
  // keep showing the newest text unless the reader scrolled up.
  var draftPinned = true;
  document.addEventListener("scroll", function (e) {
    var d = e.target;
    if (d && d.id === "draft") draftPinned = d.scrollHeight - d.scrollTop - d.clientHeight < 40;
  }, true);
  document.addEventListener("htmx:oobAfterSwap", function () {
    var d = document.getElementById("draft");
    if (d && draftPinned) d.scrollTop = d.scrollHeight;
  });

  // Copy the share link. The button is hidden until this script shows it.
  // The share link shows its full URL (the server may only know the path).
  function enhance() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-copy-link][hidden]"), function (b) { b.hidden = false; });
    Array.prototype.forEach.call(document.querySelectorAll("a[data-testid=share-link]"), function (a) {
      if (a.textContent !== a.href) a.textContent = a.href;
    });
  }
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.className = "sr-only";
      document.body.appendChild(ta);
      ta.select();
      var ok = document.execCommand && document.execCommand("copy");
      ta.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-copy-link]");
    if (!b) return;
    var box = b.closest(".share"), link = box && box.querySelector("[data-testid=share-link]");
    var status = box && box.querySelector(".copy-status");
    if (!link) return;
    copyText(link.href).then(function () {
      if (status) status.textContent = "Copied";
    }, function () {
      if (status) status.textContent = "Select the link to copy it";
    });
  });
  // The task form's time zone: a zone nobody chose yet (the server's
  // default) becomes this browser's, and the next runs follow it.
  function browserZone() {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("input[data-browser-zone]"), function (input) {
      input.removeAttribute("data-browser-zone");
      if (!zone || input.value === zone) return;
      input.value = zone;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  // The schedule preview answers 400 with why a schedule gives no runs;
  // show that answer in place like any other.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (e.detail.xhr.status === 400 && elt && elt.closest && elt.closest("[data-preview]")) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });

  enhance();
  // After htmx has set up the page (it listens for the same event, and
  // its script came first), so the zone's change asks for the preview.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", browserZone); else browserZone();
  document.addEventListener("htmx:afterSettle", enhance);
  document.addEventListener("htmx:oobAfterSwap", enhance);
})();
