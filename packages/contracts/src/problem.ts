import { z } from 'zod';

/** RFC 9457 problem details, the error body of the resource server. */
export const ProblemDetails = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .passthrough();
export type ProblemDetails = z.infer<typeof ProblemDetails>;
