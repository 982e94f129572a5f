// SPDX-License-Identifier: GPL-2.0
#include "top_term.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define ALT_SCREEN_ON  "\x1b[?1049h"
#define ALT_SCREEN_OFF "\x1b[?1049l"
#define CURSOR_HIDE    "\x1b[?25l"
#define CURSOR_SHOW    "\x1b[?25h"
#define NO_AUTOWRAP    "\x1b[?7l"
#define AUTOWRAP       "\x1b[?7h"
#define HOME	       "\x1b[H"
#define CLEAR_EOL      "\x1b[K"
#define CLEAR_BELOW    "\x1b[J"

static struct termios saved;
static bool entered;

/* write(2) all of it: stdio may be mid-buffer when a signal ends us. */
static void put(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, s, len);

		if (n <= 0 && errno != EINTR)
			return;
		if (n > 0) {
			s += n;
			len -= (size_t)n;
		}
	}
}

static void puts_raw(const char *s)
{
	put(s, strlen(s));
}

void top_term_restore(void)
{
	if (!entered)
		return;
	entered = false;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	puts_raw(AUTOWRAP CURSOR_SHOW ALT_SCREEN_OFF);
}

int top_term_enter(void)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &saved))
		return -errno;
	raw = saved;
	/* Keys one at a time, unechoed; output as written (no \n -> \r\n). */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw))
		return -errno;
	entered = true;
	atexit(top_term_restore);
	puts_raw(ALT_SCREEN_ON CURSOR_HIDE NO_AUTOWRAP);
	return 0;
}

void top_term_size(int *width, int *height)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col || !ws.ws_row) {
		*width = 80;
		*height = 24;
		return;
	}
	*width = ws.ws_col;
	*height = ws.ws_row;
}

void top_term_draw(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	bool first = true;

	puts_raw(HOME);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		/* No newline after the last: the screen must not scroll. */
		if (!first)
			puts_raw("\r\n");
		put(p, n);
		puts_raw(CLEAR_EOL);
		first = false;
		p += n + (nl ? 1 : 0);
	}
	puts_raw(CLEAR_BELOW);
}

int top_term_key(int timeout_ms)
{
	struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
	unsigned char c;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	return read(STDIN_FILENO, &c, 1) == 1 ? c : -1;
}
