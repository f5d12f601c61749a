const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on a terminal's stderr while the model thinks; a no-op when not a TTY. */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly enabled: boolean,
  ) {}

  start(label = "thinking"): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => {
      this.write(`\r${FRAMES[this.frame++ % FRAMES.length]} ${label}`);
    }, 80);
    this.timer.unref();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.write("\r\x1b[2K");
  }
}
