import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsString, MaxLength } from 'class-validator';
import { NullableField, OptionalField } from '../../shared/http/validation';
import { WEBHOOK_EVENT_TYPES } from '../domain/event-types';
import { MAX_URL_LENGTH } from '../application/target';
import { MAX_DESCRIPTION_LENGTH } from '../application/webhook.handlers';

const MAX_TYPES = WEBHOOK_EVENT_TYPES.length + 1;

export class CreateWebhookDto {
  @IsDefined({ message: 'url is required' })
  @IsString({ message: 'url must be a string' })
  @MaxLength(MAX_URL_LENGTH, { message: `url: at most ${MAX_URL_LENGTH} characters` })
  url: string;

  /** Known event types (contract §19), or `["*"]` for all. */
  @IsDefined({ message: 'event_types is required' })
  @IsArray({ message: 'event_types must be an array of event types' })
  @ArrayMaxSize(MAX_TYPES, { message: `event_types: at most ${MAX_TYPES} entries` })
  @IsString({ each: true, message: 'event_types must be an array of event types' })
  @MaxLength(64, { each: true, message: 'event_types: each at most 64 characters' })
  event_types: string[];

  @NullableField()
  @IsString({ message: 'description must be a string' })
  @MaxLength(MAX_DESCRIPTION_LENGTH, { message: `description: at most ${MAX_DESCRIPTION_LENGTH} characters` })
  description?: string | null;
}

export class UpdateWebhookDto {
  @OptionalField()
  @IsString({ message: 'url must be a string' })
  @MaxLength(MAX_URL_LENGTH, { message: `url: at most ${MAX_URL_LENGTH} characters` })
  url?: string;

  @OptionalField()
  @IsArray({ message: 'event_types must be an array of event types' })
  @ArrayMaxSize(MAX_TYPES, { message: `event_types: at most ${MAX_TYPES} entries` })
  @IsString({ each: true, message: 'event_types must be an array of event types' })
  @MaxLength(64, { each: true, message: 'event_types: each at most 64 characters' })
  event_types?: string[];

  @OptionalField()
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled?: boolean;

  @NullableField()
  @IsString({ message: 'description must be a string' })
  @MaxLength(MAX_DESCRIPTION_LENGTH, { message: `description: at most ${MAX_DESCRIPTION_LENGTH} characters` })
  description?: string | null;
}
