import { Controller, Get } from '@nestjs/common';

/** `GET /healthz`: the process is up (with its pid, which the storm's crash scenario reads). */
@Controller('healthz')
export class HealthController {
  @Get()
  health(): { ok: true; pid: number } {
    return { ok: true, pid: process.pid };
  }
}
