// The replay page: while a replay runs, its progress bar follows the API's count of events
// done, and the page reloads once the replay has ended, to show what it found.

const POLL_MS = 1000;

const run = document.querySelector("[data-replay][data-status-url]");
if (run) {
  const bar = run.querySelector("[data-replay-progress]");
  const count = run.querySelector("[data-replay-count]");
  const poll = async () => {
    let status;
    try {
      const answer = await fetch(run.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (!answer.ok) throw new Error(String(answer.status));
      status = await answer.json();
    } catch {
      setTimeout(poll, POLL_MS * 3);
      return;
    }
    if (status.state !== "queued" && status.state !== "running") {
      window.location.reload();
      return;
    }
    bar.max = Math.max(status.events, 1);
    bar.value = status.done;
    bar.textContent = `${status.done} of ${status.events}`;
    count.textContent = `${status.done} of ${status.events} events`;
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}
