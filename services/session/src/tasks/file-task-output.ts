/**
 * Reads the end of a task's output file (the TaskOutputReader port).
 */
import { open } from 'node:fs/promises';
import type { TaskOutputReader } from '../domain/tasks/ports.ts';

export const fileTaskOutput: TaskOutputReader = {
  async readEnd(path, maxBytes) {
    let file;
    try {
      file = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const { size } = await file.stat();
      const start = Math.max(0, size - maxBytes);
      const buffer = Buffer.alloc(size - start);
      await file.read(buffer, 0, buffer.length, start);
      let text = buffer.toString('utf8');
      // The first line was cut in the middle: the console would not show half a line.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
      return { text, cut: start > 0 };
    } finally {
      await file.close();
    }
  },
};
