// Keeps /contexts current without polling: the server pushes the re-rendered live part of
// the page as a server-sent event after each change, and this swaps it in. Without
// JavaScript the page is complete as loaded; reload it to see later changes.
(function () {
  'use strict';
  var live = document.getElementById('inspector-live');
  if (!live || !window.EventSource) { return; }
  var source = new EventSource(live.getAttribute('data-events'));
  source.addEventListener('update', function (event) {
    live.innerHTML = event.data;
    live.setAttribute('data-version', event.lastEventId);
  });
  source.addEventListener('hello', function () {
    live.setAttribute('data-listening', 'yes');
  });
}());
