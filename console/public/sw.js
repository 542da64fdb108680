// The console's service worker: shows the relay's Web Push notifications (a new card or ask, docs/adr/0031) and opens
// the console where the notification points when it is clicked. The payload is JSON: { title, body, path, tag }.
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(self.registration.showNotification(data.title || 'Relay', { body: data.body || '', tag: data.tag, data: { path: data.path || '/inbox' } }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data?.path || '/inbox'));
});
