import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, Matches, ValidateNested } from 'class-validator';
import { OptionalField } from '../shared/http/validation';
import { EMAIL_AUTH_TIERS, EmailAuthTier, Plan, PLANS } from '../accounts/domain/account.events';

export class EmailAuthSubscriptionDto {
  @IsIn(EMAIL_AUTH_TIERS as string[], { message: 'email_auth.tier must be none, standard or enterprise' })
  tier: EmailAuthTier;

  @IsArray()
  @ArrayMaxSize(10000)
  @IsString({ each: true })
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
    each: true,
    message: 'email_auth.domains must be lowercase zone names',
  })
  domains: string[];
}

export class SubscriptionDto {
  @OptionalField()
  @IsIn(PLANS as string[], { message: 'plan must be free, plus, pro or elite' })
  plan?: Plan;

  @OptionalField()
  @ValidateNested()
  @Type(() => EmailAuthSubscriptionDto)
  email_auth?: EmailAuthSubscriptionDto;
}
