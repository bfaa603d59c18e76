import { IsString, MaxLength } from 'class-validator';

export class RestoreDto {
  /** ISO 8601 instant with `Z` or an offset; parsed by the history queries (400 when malformed or in the future). */
  @IsString({ message: 'as_of must be an ISO 8601 instant' })
  @MaxLength(64)
  as_of: string;
}
