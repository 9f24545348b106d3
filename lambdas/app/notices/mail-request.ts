import { z } from 'zod';
import { limit } from '#app/schema/common.ts';

/** `GET /v1/mail`: how many caught messages, newest first (default MAIL_DEFAULT_LIMIT). */
export const mailQuery = z.object({ limit: limit.optional() });
export const MAIL_DEFAULT_LIMIT = 50;
